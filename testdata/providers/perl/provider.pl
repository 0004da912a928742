#!/usr/bin/perl
# A pier resource provider written from docs/providers.md alone, in Perl
# with core modules only. It exists to prove that the guide is enough: the
# conformance check (pier provider check) runs against it in
# host/conformance's tests.
#
# Types:
#   note   {path, text}  -> {path, bytes}  a file; stateless or stateful
#   token  {name}        -> {token}        a random token kept across
#                                          updates; requires state
#   ledger {file}        -> {}             a state provider keeping the
#                                          state document in a JSON file
# Optional operations implemented: destroy.
use strict;
use warnings;
use JSON::PP ();
use File::Spec ();
use IO::Handle ();

my $json = JSON::PP->new->utf8->canonical;

# stdout carries responses only; flush each one at once.
STDOUT->autoflush(1);

sub logmsg { print STDERR "perl-provider: @_\n" }


my %types = (
    note   => { inputs => [qw(path text)], stateful_only => 0 },
    token  => { inputs => [qw(name)],      stateful_only => 1 },
    ledger => { inputs => [qw(file)],      stateful_only => 0 },
);

sub check_type {
    my ($type) = @_;
    return if defined $type && !ref $type && exists $types{$type};
    die { message => sprintf('unknown resource type "%s" (supported: %s)',
        defined $type ? $type : '', join(', ', sort keys %types)) };
}

sub check_inputs {
    my ($type, $in) = @_;
    die { message => 'inputProperties must be an object' } unless ref $in eq 'HASH';
    my %known = map { $_ => 1 } @{ $types{$type}{inputs} };
    my @unknown = sort grep { !$known{$_} } keys %$in;
    die { message => sprintf('unknown input field(s) %s for resource type "%s" (known: %s)',
        join(', ', map { "\"$_\"" } @unknown), $type, join(', ', @{ $types{$type}{inputs} })) } if @unknown;
    for my $name (@{ $types{$type}{inputs} }) {
        die { message => "input \"$name\" of resource type \"$type\" must be a string" }
            unless defined $in->{$name} && !ref $in->{$name};
    }
}

sub write_file {
    my ($path, $data) = @_;
    my $tmp = "$path.tmp.$$";
    open(my $fh, '>:raw', $tmp) or die { message => "write $path: $!" };
    print {$fh} $data or die { message => "write $path: $!" };
    $fh->flush;
    $fh->sync;    # durable before we answer
    close($fh) or die { message => "write $path: $!" };
    rename($tmp, $path) or die { message => "rename $tmp to $path: $!" };
}

sub random_token {
    open(my $fh, '<:raw', '/dev/urandom') or die { message => "open /dev/urandom: $!" };
    read($fh, my $bytes, 16) == 16 or die { message => "read /dev/urandom: short read" };
    return unpack('H*', $bytes);
}

# ---- ledger: the state document and JSON Patch ----

sub initial_state { { _type => 'nixopsState', resources => {}, deployments => {} } }

sub read_ledger {
    my ($file) = @_;
    return initial_state() unless -e $file;
    open(my $fh, '<:raw', $file) or die { message => "read $file: $!" };
    local $/;
    my $data = <$fh>;
    my $doc = eval { $json->decode($data) };
    die { message => "read $file: not a JSON state document: $@" } unless ref $doc eq 'HASH';
    return $doc;
}

sub parse_pointer {
    my ($ptr) = @_;
    return () if $ptr eq '';
    die { message => "invalid JSON Pointer \"$ptr\"" } unless $ptr =~ m{^/};
    return map { my $s = $_; $s =~ s/~1/\//g; $s =~ s/~0/~/g; $s } split(m{/}, substr($ptr, 1), -1);
}

sub clone { $json->decode($json->encode([ $_[0] ]))->[0] }

# resolve returns the container holding the pointer's last token, and that
# token. Every parent must exist.
sub resolve {
    my ($doc, $ptr) = @_;
    my @tokens = parse_pointer($ptr);
    die { message => "patch path \"$ptr\" targets the whole document" } unless @tokens;
    my $last = pop @tokens;
    my $node = $$doc;
    for my $t (@tokens) {
        if (ref $node eq 'HASH' && exists $node->{$t}) {
            $node = $node->{$t};
        } elsif (ref $node eq 'ARRAY' && $t =~ /^(0|[1-9][0-9]*)$/ && $t < @$node) {
            $node = $node->[$t];
        } else {
            die { message => "patch path \"$ptr\": \"$t\" does not exist" };
        }
    }
    return ($node, $last);
}

sub get_at {
    my ($doc, $ptr) = @_;
    return $$doc if $ptr eq '';
    my ($c, $t) = resolve($doc, $ptr);
    return $c->{$t} if ref $c eq 'HASH' && exists $c->{$t};
    return $c->[$t] if ref $c eq 'ARRAY' && $t =~ /^(0|[1-9][0-9]*)$/ && $t < @$c;
    die { message => "patch path \"$ptr\" does not exist" };
}

sub remove_at {
    my ($doc, $ptr) = @_;
    my $old = get_at($doc, $ptr);
    my ($c, $t) = resolve($doc, $ptr);
    if (ref $c eq 'HASH') { delete $c->{$t} } else { splice(@$c, $t, 1) }
    return $old;
}

sub add_at {
    my ($doc, $ptr, $value) = @_;
    if ($ptr eq '') { $$doc = $value; return }
    my ($c, $t) = resolve($doc, $ptr);
    if (ref $c eq 'HASH') {
        $c->{$t} = $value;
    } elsif (ref $c eq 'ARRAY') {
        if ($t eq '-') { push @$c, $value; return }
        die { message => "patch path \"$ptr\": bad array index" }
            unless $t =~ /^(0|[1-9][0-9]*)$/ && $t <= @$c;
        splice(@$c, $t, 0, $value);
    } else {
        die { message => "patch path \"$ptr\": parent is not a container" };
    }
}

sub apply_patch {
    my ($state, $patch) = @_;
    my $doc = clone($state);    # all or nothing: work on a copy
    for my $op (@$patch) {
        my $kind = $op->{op} // '';
        my $path = $op->{path} // '';
        if ($kind eq 'add') {
            add_at(\$doc, $path, $op->{value});
        } elsif ($kind eq 'remove') {
            remove_at(\$doc, $path);
        } elsif ($kind eq 'replace') {
            remove_at(\$doc, $path);
            add_at(\$doc, $path, $op->{value});
        } elsif ($kind eq 'move') {
            add_at(\$doc, $path, remove_at(\$doc, $op->{from}));
        } elsif ($kind eq 'copy') {
            add_at(\$doc, $path, clone(get_at(\$doc, $op->{from})));
        } elsif ($kind eq 'test') {
            die { message => "patch test at \"$path\" failed" }
                unless $json->encode([ get_at(\$doc, $path) ]) eq $json->encode([ $op->{value} ]);
        } else {
            die { message => "unknown patch operation \"$kind\"" };
        }
    }
    die { message => 'patch would make the state document not an object' } unless ref $doc eq 'HASH';
    return $doc;
}

# ---- handlers ----

sub create {
    my ($req) = @_;
    my $type = $req->{type};
    check_type($type);
    check_inputs($type, $req->{inputProperties});
    my $in = $req->{inputProperties};
    if ($types{$type}{stateful_only} && !$req->{isStateful}) {
        die { message => "resource type \"$type\" requires state: give the resource a state handler (state = resource.<name>)" };
    }
    return { createResourceResponse => { outputProperties => make($type, $in, undef) } };
}

sub update {
    my ($req) = @_;
    my $res = $req->{resource};
    check_type($res->{type});
    check_inputs($res->{type}, $req->{inputProperties});
    return { updateResourceResponse => { outputProperties => make($res->{type}, $req->{inputProperties}, $res) } };
}

# make brings the object to inputs $in; $old is the recorded resource on
# update, undef on create.
sub make {
    my ($type, $in, $old) = @_;
    if ($type eq 'note') {
        my $bytes = $in->{text};
        utf8::encode($bytes);    # the file holds UTF-8; outputs count its bytes
        write_file($in->{path}, $bytes);
        my $abs = File::Spec->rel2abs($in->{path});
        my $prev = $old && $old->{outputProperties} ? $old->{outputProperties}{path} : undef;
        unlink $prev if defined $prev && $prev ne $abs;
        logmsg("wrote $abs");
        return { path => $abs, bytes => length($bytes) };
    }
    if ($type eq 'token') {
        my $prev = $old && $old->{outputProperties} ? $old->{outputProperties}{token} : undef;
        return { token => defined $prev ? $prev : random_token() };
    }
    # ledger: create the file so that the store exists from now on.
    write_file($in->{file}, $json->encode(initial_state()) . "\n") unless -e $in->{file};
    return {};
}

sub destroy {
    my ($req) = @_;
    my $res = $req->{resource};
    check_type($res->{type});
    if ($res->{type} eq 'note') {
        my $path = $res->{outputProperties} && $res->{outputProperties}{path};
        $path = $res->{inputProperties}{path} unless defined $path;
        if (defined $path && !unlink($path) && !$!{ENOENT}) {
            die { message => "remove $path: $!" };
        }
    }
    # token: nothing real to remove. ledger: the file is the history; keep it.
    return { destroyResourceResponse => {} };
}

sub ledger_file {
    my ($res) = @_;
    die { message => 'state requests need a resource of type "ledger"' }
        unless ref $res eq 'HASH' && defined $res->{type} && $res->{type} eq 'ledger';
    check_inputs('ledger', $res->{inputProperties});
    return $res->{inputProperties}{file};
}

sub state_read {
    my ($req) = @_;
    return { stateResourceReadResponse => { state => read_ledger(ledger_file($req->{resource})) } };
}

sub state_event {
    my ($req) = @_;
    my $file = ledger_file($req->{resource});
    die { message => 'patch must be an array' } unless ref $req->{patch} eq 'ARRAY';
    my $state = apply_patch(read_ledger($file), $req->{patch});
    write_file($file, $json->encode($state) . "\n");
    logmsg("recorded $req->{event} event in $file");
    return { stateResourceEventResponse => {} };
}

my %handlers = (
    createResourceRequest    => \&create,
    updateResourceRequest    => \&update,
    destroyResourceRequest   => \&destroy,
    stateResourceReadRequest => \&state_read,
    stateResourceEvent       => \&state_event,
);

sub handle {
    my ($line) = @_;
    my $msg = eval { $json->decode($line) };
    die { message => "request is not JSON: $@" } unless defined $msg;
    die { message => 'request must be an object with exactly one key' }
        unless ref $msg eq 'HASH' && keys %$msg == 1;
    my ($kind) = keys %$msg;
    my $h = $handlers{$kind} or die { message => "unsupported request \"$kind\"" };
    die { message => "$kind body must be an object" } unless ref $msg->{$kind} eq 'HASH';
    return $h->($msg->{$kind});
}

# One request per line until stdin closes; then exit 0.
while (my $line = <STDIN>) {
    next if $line =~ /^\s*$/;
    my $resp = eval { handle($line) };
    if (!defined $resp) {
        my $err = $@;
        my $message = ref $err eq 'HASH' ? $err->{message} : "internal error: $err";
        $message =~ s/\s+$//;
        $resp = { errorResponse => { message => $message } };
    }
    print STDOUT $json->encode($resp), "\n";
}
exit 0;
