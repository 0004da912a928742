{
  description = "pier test: a composite whose member set depends on an output";
  outputs = { self }:
    let
      provider = { executable = "${./provider.py}"; args = [ ]; type = "stdio"; operations = [ "destroy" ]; };
      value = v: {
        resource = { inherit provider; type = "value"; inputs.value = v; outputsSkeleton.value = { }; state = null; };
      };
    in
    {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: {
          members = {
            size = value "2";
            # One member per unit of size.value: the set is unknown until
            # size has been applied.
            replicas.members = builtins.listToAttrs (builtins.genList
              (i: { name = "r${toString i}"; value = value "replica-${toString i}"; })
              (builtins.fromJSON outputValues.size.value));
          };
        };
      };
    };
}
