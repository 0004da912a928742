{
  description = "pier test: a flake in NixOps4's shape whose provider declaration has no operations; pier.providers beside rootFunction declares destroy";
  outputs = { self }:
    let
      # Exactly what NixOps4's resource module exports: type, executable, args.
      provider = {
        type = "stdio";
        executable = "${./provider.py}";
        args = [ "--log" "requests.log" ];
      };
      names = builtins.fromJSON (builtins.readFile ./names.json);
    in
    {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: {
          members = {
            state.resource = {
              provider.builtin = "local";
              type = "state_file";
              inputs.name = "state.json";
              outputsSkeleton = { };
              state = null;
            };
          } // builtins.listToAttrs (map
            (name: {
              inherit name;
              value.resource = {
                inherit provider;
                type = "file";
                inputs = { name = "${name}.txt"; contents = "${name}\n"; };
                outputsSkeleton.path = { };
                state = [ "state" ];
              };
            })
            names);
        };
        # pier: the optional operations of providers by executable. NixOps4
        # reads only _type and rootFunction of this attribute set.
        pier.providers = [
          { executable = provider.executable; operations = [ "destroy" ]; }
        ];
      };
    };
}
