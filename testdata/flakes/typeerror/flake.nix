{
  description = "pier test: a Nix type error inside a nested member";
  outputs = { self }:
    let
      provider = { executable = "${./provider.py}"; args = [ ]; type = "stdio"; };
    in
    {
      # Not a component: selecting it is an error.
      plain.members = { };
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: {
          members = {
            fine.resource = { inherit provider; type = "value"; inputs.value = "ok"; outputsSkeleton.value = { }; state = null; };
            web.members.db.resource = {
              inherit provider;
              type = "value";
              inputs.value = 1 + "one";
              outputsSkeleton.value = { };
              state = null;
            };
          };
        };
      };
    };
}
