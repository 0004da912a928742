{
  description = "pier end-to-end test: stateful resources in a state_file, an output feeding an input, removable members";
  outputs = { self }:
    let
      provider = {
        executable = "${./provider.py}";
        args = [ "--log" "requests.log" ];
        type = "stdio";
        operations = [ "destroy" ];
      };
      # The names of extra members; the test empties the list to see them destroyed.
      extras = builtins.fromJSON (builtins.readFile ./extras.json);
    in
    {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: {
          members = {
            state.resource = {
              provider.builtin = "local";
              type = "state_file";
              inputs.name = "pier-state.json";
              outputsSkeleton = { };
              state = null;
            };
            db.resource = {
              inherit provider;
              type = "value";
              inputs.value = "main-db";
              outputsSkeleton.value = { };
              state = [ "state" ];
            };
            app.members = {
              config.resource = {
                inherit provider;
                type = "file";
                inputs = { name = "app.conf"; contents = "database = ${outputValues.db.value}\n"; };
                outputsSkeleton.path = { };
                state = [ "state" ];
              };
            } // builtins.listToAttrs (map
              (name: {
                inherit name;
                value.resource = {
                  inherit provider;
                  type = "file";
                  inputs = { name = "${name}.txt"; contents = "extra ${name}\n"; };
                  outputsSkeleton.path = { };
                  state = [ "state" ];
                };
              })
              extras);
          };
        };
      };
    };
}
