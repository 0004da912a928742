{
  description = "pier test: top-level members that depend on an output of one of them";
  outputs = { self }: {
    nixops4 = {
      _type = "nixops4Component";
      rootFunction = { outputValues, resourceProviderSystem, ... }: {
        members = if outputValues.db.value == "" then { } else {
          db.resource = {
            provider = { executable = "${./provider.py}"; type = "stdio"; };
            type = "value";
            inputs.value = "x";
            outputsSkeleton.value = { };
          };
        };
      };
    };
  };
}
