# LnGen.pm -- what gen/opgen.pl and gen/optgen.pl share: reading and
# checking operator descriptions (gen/op_descs/*.json, format in
# docs/op-descriptions.md), resolving "extends", m4 expansion of templates,
# and writing a generated directory whole.
#
# Errors in a description stop the generator: one line naming the file and
# the field ("gen/op_descs/relu.json: relu: tensors_in[0].dtype: ..."), exit 1.
package LnGen;

use strict;
use warnings;
use B ();
use JSON::PP ();
use File::Temp ();
use File::Spec;
use Exporter 'import';

our @EXPORT_OK = qw(fail is_num is_int is_str is_bool json_read check_keys
                    load_op_descs c_str c_refs m4_expand write_dir write_file
                    dtype_enum cmp_enum %CMP);

our $PROG = 'gen';

sub fail {
    my ($where, $msg) = @_;
    print STDERR "$PROG: $where: $msg\n";
    exit 1;
}

# JSON::PP keeps numbers and strings apart in the scalar's flags.
sub is_num {
    my ($v) = @_;
    return 0 if !defined $v || ref $v;
    my $f = B::svref_2object(\$v)->FLAGS;
    return ($f & (B::SVp_IOK | B::SVp_NOK)) && !($f & B::SVp_POK);
}
sub is_int  { my ($v) = @_; return is_num($v) && $v == int($v); }
sub is_str  { my ($v) = @_; return defined $v && !ref $v && !is_num($v); }
sub is_bool { return JSON::PP::is_bool($_[0]); }

sub json_read {
    my ($file) = @_;
    open my $fh, '<', $file or fail($file, "cannot open: $!");
    local $/;
    my $text = <$fh>;
    close $fh;
    my $v = eval { JSON::PP->new->utf8->decode($text) };
    if (!defined $v) {
        my $e = $@;
        $e =~ s/ at \S+ line \d+\.?\s*$//;
        fail($file, "malformed JSON: $e");
    }
    return $v;
}

# Field types: 'str', 'int', 'num', 'bool', 'array', 'object', 'any', or a
# code ref returning an error message (or undef).
sub check_keys {
    my ($where, $obj, $spec, @required) = @_;
    fail($where, 'must be an object') if ref $obj ne 'HASH';
    for my $k (sort keys %$obj) {
        my $t = $spec->{$k};
        fail("$where.$k", "unknown field '$k'") if !defined $t;
        my $v = $obj->{$k};
        my $ok = $t eq 'any' ? 1
               : $t eq 'str' ? is_str($v)
               : $t eq 'int' ? is_int($v)
               : $t eq 'num' ? is_num($v)
               : $t eq 'bool' ? is_bool($v)
               : $t eq 'array' ? ref $v eq 'ARRAY'
               : $t eq 'object' ? ref $v eq 'HASH'
               : $t eq 'str|object' ? (is_str($v) || ref $v eq 'HASH')
               : $t eq 'int|object' ? (is_int($v) || ref $v eq 'HASH')
               : die "bad spec $t";
        my $what = $t eq 'str' ? 'a string' : $t eq 'int' ? 'an integer'
                 : $t eq 'num' ? 'a number' : $t eq 'bool' ? 'true or false'
                 : $t eq 'array' ? 'an array' : $t eq 'object' ? 'an object'
                 : $t eq 'str|object' ? 'a string or an object'
                 : 'an integer or an object';
        fail("$where.$k", "must be $what") if !$ok;
    }
    for my $k (@required) {
        fail($where, "missing field '$k'") if !exists $obj->{$k};
    }
}

our %CMP = (eq => 'LN_CMP_EQ', ne => 'LN_CMP_NE', gt => 'LN_CMP_GT',
            ge => 'LN_CMP_GE', lt => 'LN_CMP_LT', le => 'LN_CMP_LE');

# {"ge": 1, "le": 8} -> ([LN_CMP_GE, 1], [LN_CMP_LE, 8]); an integer n is {"eq": n}.
sub cmp_enum {
    my ($where, $v) = @_;
    return (['LN_CMP_EQ', $v]) if is_num($v);
    fail($where, 'must be a number or an object of comparisons') if ref $v ne 'HASH';
    my @out;
    for my $k (sort keys %$v) {
        fail("$where.$k", "unknown comparison '$k' (eq ne gt ge lt le)") if !$CMP{$k};
        fail("$where.$k", 'must be a number') if !is_num($v->{$k});
        push @out, [$CMP{$k}, $v->{$k}];
    }
    fail($where, 'has no comparison') if !@out;
    return @out;
}

my %DTYPES = map { $_ => 1 } qw(float32 float64 float16 int8 int16 int32 int64
                                uint8 uint16 uint32 uint64 bool);
sub dtype_enum {
    my ($name) = @_;
    return undef if !$DTYPES{$name};
    return 'LN_DTYPE_' . uc $name;
}

sub c_str {
    my ($s) = @_;
    $s =~ s/\\/\\\\/g;
    $s =~ s/"/\\"/g;
    $s =~ s/\n/\\n/g;
    $s =~ s/\t/\\t/g;
    return "\"$s\"";
}

# The identifiers a C expression refers to (not members after . or ->,
# not inside string or character literals).
sub c_refs {
    my %r;
    for my $code (@_) {
        next if !defined $code;
        my $c = $code;
        $c =~ s/"(?:[^"\\]|\\.)*"/""/g;
        $c =~ s/'(?:[^'\\]|\\.)*'/''/g;
        while ($c =~ /(?<![\w.])(?<!->)([A-Za-z_]\w*)/g) {
            $r{$1} = 1;
        }
    }
    return \%r;
}

#
# Operator descriptions.
#
my %DESC_SPEC = (
    optype => 'str', arch => 'str', extends => 'str', doc => 'str',
    core => 'bool', tensors_in => 'array', tensors_out => 'array',
    params => 'array', checks => 'array', priv => 'array', mem => 'object',
    run => 'array', static_run => 'array', aot => 'str', kernel => 'str', onnx => 'array',
    scratch => 'object', add_params => 'array',
);
my @ARCHS = qw(none cpu);

# A family: ops that differ only in name, doc, ONNX mapping and kernel,
# described once (docs/op-descriptions.md, "Families"):
#   {"family": "softmax", "doc": "...", "shared": {abstract op fields},
#    "arch": {"cpu": {arch op fields}},
#    "members": [{"optype": "softmax", "doc": "...", "onnx": [...],
#                 "cpu": {"kernel": "..."}}, ...]}
# gives per member the abstract op (shared + the member's own fields) and
# per arch "<optype>_<arch>" extending it (arch fields + the member's).
sub family_descs {
    my ($path, $f) = @_;
    my $w = "$path: family";
    check_keys($w, $f, { family => 'str', doc => 'str', shared => 'object', arch => 'object',
                         members => 'array' }, 'family', 'shared', 'members');
    fail("$w.family", "'$f->{family}' is not a C identifier") if $f->{family} !~ /^[a-z_][a-z0-9_]*$/;
    my $arch = $f->{arch} // {};
    my @out;
    my $copy = sub { JSON::PP->new->decode(JSON::PP->new->encode($_[0])) };
    for my $i (0 .. $#{ $f->{members} }) {
        my $m = $f->{members}[$i];
        my $mw = "$w.members[$i]";
        fail($mw, 'must be an object with an optype') if ref $m ne 'HASH' || !is_str($m->{optype});
        my %abs = (%{ $copy->($f->{shared}) }, arch => 'none');
        my %own;
        for my $k (keys %$m) {
            if (grep { $_ eq $k } @ARCHS) {
                fail("$mw.$k", 'must be an object of arch op fields') if ref $m->{$k} ne 'HASH';
                next;
            }
            $abs{$k} = $copy->({ v => $m->{$k} })->{v};
        }
        $abs{_family} = $f->{family};
        push @out, \%abs;
        my %archs = map { ($_ => 1) } keys %$arch, grep { ref $m->{$_} eq 'HASH' && $_ ne 'none' } @ARCHS;
        for my $a (sort keys %archs) {
            fail("$w.arch", "unknown arch '$a' (" . join(' ', @ARCHS) . ')') if !grep { $_ eq $a } @ARCHS;
            my %ad = (%{ $copy->($arch->{$a} // {}) }, %{ $copy->($m->{$a} // {}) });
            $ad{optype} = "$m->{optype}_$a";
            $ad{arch} = $a;
            $ad{extends} = $m->{optype};
            $ad{_family} = $f->{family};
            push @out, \%ad;
        }
    }
    return @out;
}

# Reads every *.json in $dir (sorted).  A file holds one description or an
# array of them.  Returns a list of descriptions, each with _file set and
# "extends" resolved (the child gets a deep copy of its parent's fields,
# its own fields replacing them; "onnx" and "doc" are not inherited).
sub load_op_descs {
    my ($dir) = @_;
    opendir my $dh, $dir or fail($dir, "cannot open: $!");
    my @files = sort grep { /\.json$/ } readdir $dh;
    closedir $dh;
    my (@descs, %by);
    for my $f (@files) {
        my $path = "$dir/$f";
        my $v = json_read($path);
        my @list = ref $v eq 'ARRAY' ? @$v : ($v);
        @list = map { ref $_ eq 'HASH' && exists $_->{family} ? family_descs($path, $_) : $_ } @list;
        for my $i (0 .. $#list) {
            my $d = $list[$i];
            my $w = ref $v eq 'ARRAY' ? "$path: [$i]" : $path;
            fail($w, 'a description must be an object') if ref $d ne 'HASH';
            $w = "$path: $d->{optype}" if is_str($d->{optype});
            my $fam = delete $d->{_family};
            check_keys($w, $d, \%DESC_SPEC, 'optype', 'arch');
            $d->{_family} = $fam if defined $fam;
            fail("$w: optype", "'$d->{optype}' is not a C identifier")
                if $d->{optype} !~ /^[a-z_][a-z0-9_]*$/;
            fail("$w: arch", "unknown arch '$d->{arch}' (" . join(' ', @ARCHS) . ')')
                if !grep { $_ eq $d->{arch} } @ARCHS;
            fail("$w: optype", "'$d->{optype}' is also described in $by{$d->{optype}}{_file}")
                if $by{$d->{optype}};
            $d->{_file} = $path;
            $d->{_where} = "$path: $d->{optype}";
            $by{$d->{optype}} = $d;
            push @descs, $d;
        }
    }
    my %done;
    my $resolve;
    $resolve = sub {
        my ($d, $seen) = @_;
        return if $done{$d->{optype}};
        if (defined $d->{extends}) {
            my $p = $by{$d->{extends}};
            fail("$d->{_where}: extends", "no description of optype '$d->{extends}'") if !$p;
            fail("$d->{_where}: extends", 'inheritance cycle') if $seen->{$p->{optype}};
            $resolve->($p, { %$seen, $d->{optype} => 1 });
            my $copy = JSON::PP->new->decode(JSON::PP->new->encode(
                { map { $_ => $p->{$_} } grep { !/^_/ } keys %$p }));
            for my $k (keys %$copy) {
                next if $k =~ /^(optype|arch|extends|onnx|doc)$/;
                $d->{$k} = $copy->{$k} if !exists $d->{$k};
            }
            $d->{_root} = $p->{_root};
        } else {
            $d->{_root} = $d->{optype};
        }
        # "add_params": appended to the params it has or inherits (and so
        # inherited by its own children with them)
        if (my $add = delete $d->{add_params}) {
            push @{ $d->{params} }, @$add;
        }
        $done{$d->{optype}} = 1;
    };
    $resolve->($_, {}) for @descs;
    for my $d (@descs) {
        $d->{_tin} = { map { ref $_ eq 'HASH' && defined $_->{arg_name} ? ($_->{arg_name} => $_) : () } @{ $d->{tensors_in} // [] } };
        $d->{_tout} = { map { ref $_ eq 'HASH' && defined $_->{arg_name} ? ($_->{arg_name} => $_) : () } @{ $d->{tensors_out} // [] } };
        $d->{_par} = { map { ref $_ eq 'HASH' && defined $_->{arg_name} ? ($_->{arg_name} => $_) : () } @{ $d->{params} // [] } };
    }
    return sort { $a->{optype} cmp $b->{optype} } @descs;
}

#
# m4: $defs maps macro name -> text.  The expansion runs `m4 -P` (builtins
# are m4_*), with quotes [[< >]] and no comments, so C text passes through.
#
sub m4_expand {
    my ($template, $defs) = @_;
    my $tmp = File::Temp->new(SUFFIX => '.m4');
    print $tmp "m4_changecom()m4_changequote([[<,>]])m4_dnl\n";
    for my $k (sort keys %$defs) {
        my $v = $defs->{$k};
        die "macro $k: text contains the m4 quote" if $v =~ /\[\[<|>\]\]/;
        print $tmp "m4_define([[<$k>]], [[<$v>]])m4_dnl\n";
    }
    close $tmp;
    open my $fh, '-|', 'm4', '-P', $tmp->filename, $template
        or fail($template, "cannot run m4: $!");
    local $/;
    my $out = <$fh>;
    close $fh or fail($template, 'm4 failed');
    $out =~ s/\n{3,}/\n\n/g;
    return $out;
}

# Replace the generated files in $dir by %$files (name -> text): files not
# in the set that carry the GENERATED banner are deleted, unchanged files
# are not rewritten.
sub write_dir {
    my ($dir, $files) = @_;
    if (!-d $dir) {
        require File::Path;
        File::Path::make_path($dir);
    }
    opendir my $dh, $dir or fail($dir, "cannot open: $!");
    for my $f (sort readdir $dh) {
        next if $f =~ /^\./ || exists $files->{$f};
        my $p = "$dir/$f";
        next if !-f $p;
        open my $in, '<', $p or next;
        my $head = <$in> // '';
        close $in;
        unlink $p if $head =~ /GENERATED by gen\//;
    }
    closedir $dh;
    write_file("$dir/$_", $files->{$_}) for sort keys %$files;
}

# Write one file (through a temporary, renamed), unless it holds $text.
sub write_file {
    my ($p, $text) = @_;
    if (open my $in, '<', $p) {
        local $/;
        my $old = <$in>;
        close $in;
        return if $old eq $text;
    }
    open my $out, '>', "$p.tmp" or fail($p, "cannot write: $!");
    print $out $text;
    close $out or fail($p, "cannot write: $!");
    rename "$p.tmp", $p or fail($p, "cannot rename: $!");
}

1;
