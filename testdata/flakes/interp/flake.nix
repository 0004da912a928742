{
  description = "pier test: an output feeding an input through string interpolation";
  outputs = { self }:
    let
      provider = { executable = "${./provider.py}"; args = [ ]; type = "stdio"; operations = [ "destroy" ]; };
    in
    {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: {
          members = {
            db.resource = {
              inherit provider;
              type = "value";
              inputs.value = "main-db";
              outputsSkeleton.value = { };
              state = null;
            };
            web.resource = {
              inherit provider;
              type = "file";
              inputs = {
                name = "web.conf";
                contents = "database = ${outputValues.db.value}\n";
              };
              outputsSkeleton.path = { };
              state = null;
            };
          };
        };
      };
    };
}
