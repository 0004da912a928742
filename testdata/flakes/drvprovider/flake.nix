{
  description = "pier test: a provider executable built by a derivation";
  outputs = { self }: {
    nixops4 = {
      _type = "nixops4Component";
      rootFunction = { outputValues, resourceProviderSystem, ... }:
        let
          # Built without nixpkgs: the builder is the host's /bin/sh, which
          # Debian's nix (sandbox = false) can use.
          providerPkg = builtins.derivation {
            name = "pier-test-provider";
            system = resourceProviderSystem;
            builder = "/bin/sh";
            args = [ "-c" "/bin/mkdir -p $out/bin && /bin/cp ${./provider.py} $out/bin/provider && /bin/chmod +x $out/bin/provider" ];
          };
        in
        {
          members.greeting.resource = {
            provider = { executable = "${providerPkg}/bin/provider"; args = [ ]; type = "stdio"; };
            type = "value";
            inputs.value = "built";
            outputsSkeleton.value = { };
            state = null;
          };
        };
    };
  };
}
