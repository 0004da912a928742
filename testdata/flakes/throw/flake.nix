{
  description = "pier test: a member that throws an error of its own";
  outputs = { self }:
    let
      provider = { executable = "${./provider.py}"; args = [ ]; type = "stdio"; };
    in
    {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: {
          members = {
            fine.resource = { inherit provider; type = "value"; inputs.value = "ok"; outputsSkeleton.value = { }; state = null; };
            app.members.config.resource = {
              inherit provider;
              type = "value";
              inputs.value = throw "app.config needs a domain name";
              outputsSkeleton.value = { };
              state = null;
            };
          };
        };
      };
    };
}
