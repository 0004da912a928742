{
  description = "A pier deployment written as a Nix flake (NixOps4 component shape)";

  # No inputs: everything below uses pier's built-in local adapter. A real
  # deployment would take its providers from packages, e.g.
  #   provider.executable = lib.getExe pkgs.my-provider;
  # and pier builds them before it starts them.
  outputs = { self }:
    let
      # pier's own local adapter (file, exec, memo, state_file), run as
      # `pier adapter local` by the pier that applies this flake.
      local = { builtin = "local"; };
    in
    {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: {
          members = {
            # Where the state of every stateful resource below is recorded:
            # an append-only log of JSON Patch events.
            state.resource = {
              provider = local;
              type = "state_file";
              inputs.name = "flake.state.json";
              outputsSkeleton = { };
              state = null;
            };

            # A memo keeps the first value it was given, for ever.
            first.resource = {
              provider = local;
              type = "memo";
              inputs.initialize_with = "the first apply";
              outputsSkeleton.value = { };
              state = [ "state" ];
            };

            # A composite: its members are addressed site.motd and
            # recorded under deployments.site in the state.
            site.members.motd.resource = {
              provider = local;
              type = "file";
              inputs = {
                name = "motd.txt";
                # An output feeding an input: pier evaluates this member
                # again once `first` has been applied.
                contents = "Deployed by pier from a flake, since ${outputValues.first.value}.\n";
              };
              outputsSkeleton = { };
              state = [ "state" ];
            };
          };
        };
      };
    };
}
