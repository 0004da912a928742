{
  description = "pier test: a stateful resource whose state handler is pier's state_file";
  # The directory holding the pier binary; tests replace the placeholder
  # with a directory of their own (see nixsource tests).
  inputs.pier = { url = "path:@PIER_DIR@"; flake = false; };
  outputs = { self, pier }:
    let
      local = { executable = "${pier}/pier"; args = [ "adapter" "local" ]; type = "stdio"; operations = [ "destroy" ]; };
    in
    {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: {
          members = {
            state.resource = {
              provider = local;
              type = "state_file";
              inputs.name = "pier-state.json";
              outputsSkeleton = { };
              state = null;
            };
            app.members.token.resource = {
              provider = local;
              type = "memo";
              inputs.initialize_with = "first";
              outputsSkeleton.value = { };
              state = [ "state" ];
            };
          };
        };
      };
    };
}
