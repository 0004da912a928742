{
  description = "pier test: one file resource";
  outputs = { self }: {
    nixops4 = {
      _type = "nixops4Component";
      rootFunction = { outputValues, resourceProviderSystem, ... }: {
        members.hello.resource = {
          provider = { executable = "${./provider.py}"; args = [ ]; type = "stdio"; operations = [ "destroy" ]; };
          type = "file";
          inputs = { name = "hello.txt"; contents = "hello from a flake\n"; };
          outputsSkeleton = { path = { }; };
          state = null;
        };
      };
    };
  };
}
