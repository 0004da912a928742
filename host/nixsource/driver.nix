# pier's evaluation driver for NixOps4-style flake components.
#
# pier runs, once per round:
#   nix eval --json --impure REF#ATTR --apply 'import driver.nix "params.json"'
# params.json holds { known = TREE; cached = TREE; strict = null | [ path ]; },
# where a TREE node is { m = { <member name> = node; }; o = { <output> = value; };
# c = true; }, each part there only when needed: known outputs under o,
# cached members with c. Members are looked up by path, never by an address
# string, so that no name needs quoting here.
#
# The result lists every member of the deployment as ready, blocked or
# structurally blocked. Which outputs a member needed or read is reported
# through builtins.trace on stderr, one "pier:{json}" line per event: a
# "begin" event names the member being evaluated, and the "need"/"read"
# events after it belong to that member. Nix evaluates the result strictly
# in list order when printing it, so the attribution is exact; an error that
# builtins.tryEval cannot catch (a type error) is attributed to the member of
# the last "begin" event.
paramsFile: given:
let
  # NixOps4 before 2026-01-25 exported nixops4Deployments.NAME =
  # { _type = "nixops4Deployment"; deploymentFunction; }: the same function
  # under another name. pier reads one such deployment as the root, given
  # either itself or the whole nixops4Deployments set when it holds one.
  typeOf = v: if builtins.isAttrs v then v._type or null else null;
  legacySet =
    if typeOf given == null && builtins.isAttrs given
    then builtins.filter (n: typeOf given.${n} == "nixops4Deployment") (builtins.attrNames given)
    else [ ];
  picked =
    if legacySet == [ ] then given
    else if builtins.length legacySet == 1 then given.${builtins.head legacySet}
    else abort "pier: the flake exports several deployments in NixOps4's shape before 2026-01-25 (nixops4Deployments: ${toString legacySet}); pick one with --flake REF#nixops4Deployments.NAME";
  legacy = typeOf picked == "nixops4Deployment";
  component =
    if legacy then picked // { _type = "nixops4Component"; rootFunction = legacyRoot; }
    else picked;
  # A deployment of that shape, as a root component. Its deploymentFunction
  # took { resources, deployments, resourceProviderSystem, ... } and
  # returned { resources; deployments; }, and NixOps4 built the arguments
  # of each level from what that level returned, as a fixpoint
  # (perform_load_deployment in rust/nixops4-eval/src/eval.rs before
  # commit 8ab123d): resources.NAME.OUTPUT is an output, deployments.NAME
  # the same arguments for a nested deployment. outputValues is passed
  # too, and a result with members read as it is, for the variant with
  # rootFunction's arguments that existed while that change was made.
  legacyRoot = { outputValues, resourceProviderSystem, ... }:
    let
      argsFor = values: decl: {
        inherit resourceProviderSystem;
        resources = builtins.mapAttrs (name: _: values.${name}) (decl.resources or { });
        deployments = builtins.mapAttrs (name: d: argsFor values.${name} d) (decl.deployments or { });
      };
      declared = picked.deploymentFunction (argsFor outputValues declared // { inherit outputValues; });
      membersOf = path: decl:
        let
          resources = decl.resources or { };
          deployments = decl.deployments or { };
          both = builtins.filter (n: deployments ? ${n}) (builtins.attrNames resources);
        in
        if both != [ ] then abort "pier: ${addrOf (path ++ [ (builtins.head both) ])} is both a resource and a nested deployment; a root component has one member of each name: rename one"
        else builtins.mapAttrs (_: r: { resource = r; }) resources
          // builtins.mapAttrs (n: d: { members = membersOf (path ++ [ n ]) d; }) deployments;
    in
    if declared ? members then declared else { members = membersOf [ ] declared; };
  params = builtins.fromJSON (builtins.readFile paramsFile);
  known = params.known;

  note = event: builtins.trace ("pier:" + builtins.toJSON event);
  # An address, for messages only: a name that is not plain is quoted, as
  # pier quotes it (web."file.txt").
  addrOf = path: builtins.concatStringsSep "." (map
    (n: if builtins.match "[^].[\"\\[:space:]]+" n != null then n
      else "\"" + builtins.replaceStrings [ "\\" "\"" "\n" "\t" ] [ "\\\\" "\\\"" "\\n" "\\t" ] n + "\"")
    path);
  # The node at path in a TREE of params.json, or null.
  nodeAt = tree: path: builtins.foldl'
    (node: n: if node != null && node ? m && node.m ? ${n} then node.m.${n} else null)
    tree path;
  filterAttrs = pred: set:
    builtins.removeAttrs set (builtins.filter (n: !(pred n set.${n})) (builtins.attrNames set));

  # members pier already knows the reads of: they were ready in the last
  # round and no output they read has changed since.
  cached = params.cached;

  # One evaluation of the deployment with its own outputValues, given the
  # known outputs and whether reads and needs are traced. Nix does not
  # memoise function calls, so each call has fresh thunks and the first read
  # of each output inside it is traced again: that is how pier learns which
  # member read which output.
  instance = knownSet: traced: _:
    let
      export = component.rootFunction {
        outputValues = valuesOf knownSet traced [ ] export;
        resourceProviderSystem = builtins.currentSystem;
      };
    in
    export;

  valuesOf = knownSet: traced: path: comp:
    builtins.mapAttrs
      (name: m:
        let p = path ++ [ name ]; in
        if m ? resource then outputsOf knownSet traced p m.resource else valuesOf knownSet traced p m)
      comp.members;

  # An unknown output throws, so that builtins.tryEval marks the member that
  # needs it as blocked; the trace says which output it was.
  outputsOf = knownSet: traced: path: res:
    let
      addr = addrOf path;
      skeleton = res.outputsSkeleton or { };
      noteIf = event: if traced then note event else (x: x);
      node = nodeAt knownSet path;
    in
    if node != null && node ? o then
      builtins.mapAttrs
        (name: _: noteIf { read = path; } (node.o.${name} or
          (abort "pier: resource ${addr} has no output '${name}': its provider returned [ ${toString (builtins.attrNames node.o)} ]")))
        skeleton
    else
      builtins.mapAttrs
        (name: _: noteIf { need = path; output = name; }
          (throw "pier: output '${name}' of resource ${addr} is not known yet"))
        skeleton;

  lookup = export: path: builtins.foldl' (c: n: c.members.${n}) export path;

  # The shared instance finds the members and evaluates those whose reads
  # need no tracing. Its reads are memoised, so only a member's first read
  # of each output is traced in it.
  root = instance known true null;
  # The blind instance knows no outputs and traces nothing: a member that
  # evaluates in it reads no output at all.
  blind = instance { } false null;

  walk = path: comp:
    let
      names = note { begin = path; kind = "composite"; }
        (builtins.tryEval (let n = builtins.attrNames comp.members; in builtins.deepSeq n n));
    in
    if !names.success then [{ inherit path; status = "structural"; }]
    else builtins.concatMap (name: member (path ++ [ name ]) comp.members.${name}) names.value;

  member = path: m:
    let
      kind = note { begin = path; kind = "member"; } (builtins.tryEval (
        if m ? resource then "resource"
        else if m ? members then "composite"
        else "invalid"));
    in
    if !kind.success then [{ inherit path; status = "structural"; }]
    else if kind.value == "composite" then walk path m
    else if kind.value == "resource" then [ (resourceEntry path) ]
    else abort "pier: member ${addrOf path} has neither 'resource' nor 'members'";

  # toJSON inside tryEval forces a value completely, catching the throw of an
  # unknown output, without walking into a derivation's attributes the way
  # deepSeq would.
  resourceEntry = path: note { begin = path; kind = "resource"; } (
    let
      readsNothing = (builtins.tryEval (declJSON (lookup blind path).resource)).success;
      shared = examine (lookup root path);
      # A fresh instance per member costs a rebuild of the deployment's
      # structure, so only a member that is ready and whose reads pier must
      # learn gets one. A blocked member's needs are traced in the shared
      # instance too, since a throw is never memoised.
      fresh = !readsNothing && !((nodeAt cached path).c or false) && shared.status == "ready";
    in
    (if fresh then examine (lookup (instance known true null) path) else shared) // { inherit path; });

  # examine evaluates one resource member: its provider, type and state, and
  # each input separately, so that a partly known resource shows which
  # inputs are unknown.
  examine = m:
    let
      res = m.resource;
      head = builtins.tryEval (builtins.toJSON {
        inherit (res) provider type;
        state = res.state or null;
        lifecycle = res.lifecycle or null;
        refresh = res.refresh or false;
      });
      names = builtins.tryEval (let n = builtins.attrNames (res.inputs or { }); in builtins.deepSeq n n);
      inputs = builtins.listToAttrs (map
        (n: { name = n; value = builtins.tryEval (builtins.toJSON res.inputs.${n}); })
        names.value);
      knownInputs = builtins.mapAttrs (_: r: r.value) (filterAttrs (_: r: r.success) inputs);
      unknown = builtins.attrNames (filterAttrs (_: r: !r.success) inputs);
      ready = unknown == [ ];
      pos = builtins.unsafeGetAttrPos "resource" m;
    in
    if !(head.success && names.success) then { inherit pos; status = "blocked"; }
    else {
      inherit pos unknown;
      status = if ready then "ready" else "blocked";
      head = head.value;
      inputs = knownInputs;
      context =
        if ready
        then builtins.getContext (builtins.concatStringsSep " " ([ head.value ] ++ builtins.attrValues knownInputs))
        else { };
    };

  declJSON = res: builtins.toJSON {
    inherit (res) provider type;
    inputs = res.inputs or { };
    state = res.state or null;
  };

  # Strict mode evaluates one member without tryEval, so that Nix reports the
  # error that made it blocked, with its own position information.
  strict = path:
    let m = lookup root path; in
    if m ? resource then builtins.seq (declJSON m.resource) null
    else builtins.deepSeq (builtins.attrNames m.members) null;
in
if (component._type or null) != "nixops4Component" then
  abort "pier: the value evaluated is not a NixOps4 component (its _type is not \"nixops4Component\")"
else if params.strict != null then strict params.strict
else {
  members = walk [ ] root;
  # Operations declared beside rootFunction, for providers whose
  # declaration cannot carry them (NixOps4's provider option has no
  # operations); NixOps4 reads only _type and rootFunction.
  declared = (component.pier or { }).providers or [ ];
  # The name of the deployment read in the shape before 2026-01-25, so that
  # pier can warn; null for a nixops4Component.
  legacy = if !legacy then null else if legacySet == [ ] then "" else builtins.head legacySet;
}
