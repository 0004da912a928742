{
  description = "pier benchmark: 20 resources, 15 independent and a chain of 5";
  outputs = { self }:
    let
      provider = { executable = "${./provider.py}"; args = [ ]; type = "stdio"; operations = [ "destroy" ]; };
      value = v: {
        resource = { inherit provider; type = "value"; inputs.value = v; outputsSkeleton.value = { }; state = null; };
      };
      gen = n: f: builtins.listToAttrs (builtins.genList (i: { name = "${n}${toString i}"; value = f i; }) 15);
    in
    {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: {
          members = gen "free" (i: value "free-${toString i}") // {
            chain.members = {
              c0 = value "c0";
              c1 = value "${outputValues.chain.c0.value}/c1";
              c2 = value "${outputValues.chain.c1.value}/c2";
              c3 = value "${outputValues.chain.c2.value}/c3";
              c4 = value "${outputValues.chain.c3.value}/c4";
            };
          };
        };
      };
    };
}
