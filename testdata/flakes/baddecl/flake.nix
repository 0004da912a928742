{
  description = "pier test: a provider declaration without an executable";
  outputs = { self }: {
    nixops4 = {
      _type = "nixops4Component";
      rootFunction = { outputValues, resourceProviderSystem, ... }: {
        members.web.members.server = {
          resource = {
            provider = { args = [ "--verbose" ]; type = "stdio"; };
            type = "file";
            inputs = { };
            outputsSkeleton = { };
            state = "web.state";
          };
        };
      };
    };
  };
}
