{
  description = "pier test: members that wait on each other's outputs";
  outputs = { self }:
    let
      provider = { executable = "${./provider.py}"; args = [ ]; type = "stdio"; };
      value = v: {
        resource = { inherit provider; type = "value"; inputs.value = v; outputsSkeleton.value = { }; state = null; };
      };
    in
    {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: {
          members = {
            free = value "independent";
            a = value "a needs ${outputValues.group.b.value}";
            group.members.b = value "b needs ${outputValues.c.value}";
            c = value "c needs ${outputValues.a.value}";
          };
        };
      };
    };
}
