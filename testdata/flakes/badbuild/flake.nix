{
  description = "pier test: a provider whose derivation fails to build";
  outputs = { self }: {
    nixops4 = {
      _type = "nixops4Component";
      rootFunction = { outputValues, resourceProviderSystem, ... }:
        let
          broken = builtins.derivation {
            name = "broken-provider";
            system = resourceProviderSystem;
            builder = "/bin/sh";
            args = [ "-c" "echo the build of this provider fails on purpose >&2; exit 3" ];
          };
        in
        {
          members.svc.resource = {
            provider = { executable = "${broken}/bin/provider"; type = "stdio"; };
            type = "value";
            inputs.value = "x";
            outputsSkeleton.value = { };
            state = null;
          };
        };
    };
  };
}
