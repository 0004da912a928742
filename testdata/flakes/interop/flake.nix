{
  description = "pier test: a flake in NixOps4's shape whose state NixOps4 wrote (see host/nixsource/interop_test.go)";
  outputs = { self }:
    let
      local = { builtin = "local"; };
    in
    {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: {
          members = {
            state.resource = {
              provider = local;
              type = "state_file";
              inputs.name = "state.json";
              outputsSkeleton = { };
              state = null;
            };
            token.resource = {
              provider = local;
              type = "memo";
              inputs.initialize_with = "from nixops4";
              outputsSkeleton.value = { };
              state = [ "state" ];
            };
            app.members.motd.resource = {
              provider = local;
              type = "memo";
              inputs.initialize_with = "motd: ${outputValues.token.value}";
              outputsSkeleton.value = { };
              state = [ "state" ];
            };
            # @EXTRA@
          };
        };
      };
    };
}
