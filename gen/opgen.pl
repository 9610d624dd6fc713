#!/usr/bin/perl
# opgen.pl -- operator descriptions (gen/op_descs/*.json) to C.
#
# For every description it writes src/op/auto/ln_opimpl_<optype>.c (checks,
# shape and dtype inference, private data, run, post_run and the prototype
# `ln_op ln_opimpl_<optype>`), and from the whole set the registry
# (ln_opregistry.c/.h: per-arch prototype arrays, the list of optypes, the
# stripped ones, the ONNX mapping and the ln-aot call templates) and
# ln_ops.mk (LN_OPS -> LN_OP_STRIP_CFLAGS).  Perl prepares one m4 macro per
# piece of C; templates/*.m4 lay the files out.
#
# Usage (from the repository root): perl gen/opgen.pl
#   [--descs gen/op_descs] [--out src/op/auto] [--hooks src/op]
#   [--templates templates]
# The format is documented in docs/op-descriptions.md.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use Getopt::Long;
use LnGen qw(fail is_num is_int is_str is_bool check_keys load_op_descs
             c_str c_refs m4_expand write_dir write_file dtype_enum cmp_enum);

$LnGen::PROG = 'opgen';
my %opt = (descs => 'gen/op_descs', out => 'src/op/auto', hooks => 'src/op',
           templates => 'templates', 'rt-headers' => 'runtime/include/ln_rt.h',
           'rt-kernels' => 'runtime/kernels', 'onnx-doc' => 'docs/onnx-ops.md',
           'kernel-doc' => 'runtime/KERNELS.md');
GetOptions(\%opt, 'descs=s', 'out=s', 'hooks=s', 'templates=s', 'rt-headers=s', 'rt-kernels=s',
           'onnx-doc=s', 'kernel-doc=s')
    or die "usage: perl gen/opgen.pl [--descs DIR] [--out DIR] [--hooks DIR] [--templates DIR]\n"
         . "    [--rt-headers H[:H...]] [--rt-kernels DIR] [--onnx-doc FILE] [--kernel-doc FILE]\n";

my $hook_text = '';
if (opendir my $dh, $opt{hooks}) {
    for my $f (sort grep { /\.c$/ } readdir $dh) {
        open my $fh, '<', "$opt{hooks}/$f" or next;
        local $/;
        $hook_text .= <$fh>;
    }
    closedir $dh;
}

sub check_hook {
    my ($where, $name) = @_;
    fail($where, "'$name' is not a C identifier") if $name !~ /^[A-Za-z_]\w*$/;
    fail($where, "hook '$name' is not defined in $opt{hooks}/*.c")
        if $hook_text !~ /^[A-Za-z_][\w \t\*]*\b\Q$name\E\s*\(/m;
}

my @descs = load_op_descs($opt{descs});
my %by = map { $_->{optype} => $_ } @descs;

my %PARAM_TYPES = (
    number => 'LN_PARAM_NUMBER', bool => 'LN_PARAM_BOOL',
    string => 'LN_PARAM_STRING', dtype => 'LN_PARAM_STRING',
    array_number => 'LN_PARAM_ARRAY_NUMBER', array_bool => 'LN_PARAM_ARRAY_BOOL',
    array_string => 'LN_PARAM_ARRAY_STRING',
);

#
# Checking one (resolved) description.
#
# A variadic tensor (the last of its list) stands for <arg>_0 .. <arg>_<n-1>.
sub check_variadic {
    my ($tw, $t, $list, $i) = @_;
    return if !exists $t->{variadic};
    cmp_enum("$tw.variadic", $t->{variadic});
    fail("$tw.variadic", 'only the last tensor of its list may be variadic') if $i != $#$list;
    fail("$tw.variadic", 'a variadic tensor cannot be optional') if $t->{optional};
    fail("$tw.variadic", 'cannot follow an optional tensor')
        if grep { $_->{optional} } @$list;
}

sub validate {
    my ($d) = @_;
    my $w = $d->{_where};
    my (%tin, %tout, %par, %priv, %names);
    my $seen = sub {
        my ($where, $name) = @_;
        fail($where, "'$name' is not a C identifier") if $name !~ /^[a-z_][a-z0-9_]*$/;
        fail($where, "'$name' is used twice (tensor, param and priv names share one namespace)")
            if $names{$name}++;
    };
    for my $i (0 .. $#{ $d->{tensors_in} // [] }) {
        my $t = $d->{tensors_in}[$i];
        my $tw = "$w: tensors_in[$i]";
        check_keys($tw, $t, { arg_name => 'str', dtype => 'array', ndim => 'int|object',
                              static => 'bool', optional => 'bool', same_shape => 'str',
                              same_dtype => 'str', io => 'bool', doc => 'str',
                              variadic => 'int|object' }, 'arg_name');
        $seen->("$tw.arg_name", $t->{arg_name});
        check_variadic($tw, $t, $d->{tensors_in}, $i);
        for my $j (0 .. $#{ $t->{dtype} // [] }) {
            my $dt = $t->{dtype}[$j];
            fail("$tw.dtype[$j]", 'unknown dtype ' . (is_str($dt) ? "'$dt'" : '(not a string)'))
                if !is_str($dt) || !dtype_enum($dt);
        }
        cmp_enum("$tw.ndim", $t->{ndim}) if exists $t->{ndim};
        $tin{ $t->{arg_name} } = $t;
    }
    for my $t (@{ $d->{tensors_in} // [] }) {
        for my $rel (qw(same_shape same_dtype)) {
            next if !exists $t->{$rel};
            my $i = (grep { $d->{tensors_in}[$_] == $t } 0 .. $#{ $d->{tensors_in} })[0];
            fail("$w: tensors_in[$i].$rel", "no input tensor '$t->{$rel}'")
                if !$tin{ $t->{$rel} } || ($t->{$rel} eq $t->{arg_name} && !$t->{variadic});
        }
    }
    for my $i (0 .. $#{ $d->{params} // [] }) {
        my $p = $d->{params}[$i];
        my $pw = "$w: params[$i]";
        check_keys($pw, $p, { arg_name => 'str', type => 'str', ctype => 'str',
                              default => 'any', checks => 'object', array_len => 'int|object',
                              enum => 'array', doc => 'str' }, 'arg_name', 'type');
        $seen->("$pw.arg_name", $p->{arg_name});
        my $ty = $p->{type};
        fail("$pw.type", "unknown param type '$ty' (" . join(' ', sort keys %PARAM_TYPES) . ')')
            if !$PARAM_TYPES{$ty};
        my %ct = (number => [qw(int float double)], array_number => [qw(int float double)]);
        if (exists $p->{ctype}) {
            fail("$pw.ctype", "ctype '$p->{ctype}' does not fit type '$ty' (one of: "
                 . join(' ', @{ $ct{$ty} // [] }) . ')')
                if !grep { $_ eq $p->{ctype} } @{ $ct{$ty} // [] };
        }
        $p->{ctype} //= $ct{$ty} ? 'int' : undef;
        fail("$pw.checks", "checks need a number param (type is '$ty')")
            if exists $p->{checks} && $ty !~ /number/;
        cmp_enum("$pw.checks", $p->{checks}) if exists $p->{checks};
        fail("$pw.array_len", "array_len needs an array param (type is '$ty')")
            if exists $p->{array_len} && $ty !~ /^array/;
        cmp_enum("$pw.array_len", $p->{array_len}) if exists $p->{array_len};
        if (exists $p->{enum}) {
            fail("$pw.enum", "enum needs a string param (type is '$ty')") if $ty ne 'string';
            fail("$pw.enum", 'must be a non-empty array of strings')
                if !@{ $p->{enum} } || grep { !is_str($_) } @{ $p->{enum} };
        }
        if (exists $p->{default}) {
            my $v = $p->{default};
            my $ok = $ty eq 'number' ? is_num($v) : $ty eq 'bool' ? is_bool($v)
                   : $ty eq 'string' ? is_str($v) : $ty eq 'dtype' ? (is_str($v) && dtype_enum($v))
                   : $ty eq 'array_number' ? (ref $v eq 'ARRAY' && !grep { !is_num($_) } @$v)
                   : $ty eq 'array_bool' ? (ref $v eq 'ARRAY' && !grep { !is_bool($_) } @$v)
                   : (ref $v eq 'ARRAY' && !grep { !is_str($_) } @$v);
            fail("$pw.default", "does not fit type '$ty'") if !$ok;
        }
        $par{ $p->{arg_name} } = $p;
    }
    for my $i (0 .. $#{ $d->{tensors_out} // [] }) {
        my $t = $d->{tensors_out}[$i];
        my $tw = "$w: tensors_out[$i]";
        check_keys($tw, $t, { arg_name => 'str', dtype => 'str', shape => 'str|object',
                              static => 'bool', io => 'bool', doc => 'str',
                              variadic => 'int|object', optional => 'bool' },
                   'arg_name', 'dtype', 'shape');
        $seen->("$tw.arg_name", $t->{arg_name});
        check_variadic($tw, $t, $d->{tensors_out}, $i);
        fail("$tw.shape", 'a variadic output takes its shape from an input or a hook')
            if $t->{variadic} && ref $t->{shape} && !exists $t->{shape}{hook};
        my $dt = $t->{dtype};
        if ($dt =~ /^(\w+)\|(\w+)$/ && $par{$1} && $par{$1}{type} eq 'dtype') {
            # a dtype param when given, else an input's dtype (EyeLike)
            fail("$tw.dtype", "no input tensor '$2'") if !$tin{$2};
            fail("$tw.dtype", "'$1' must have a default (it may be absent)")
                if !exists $par{$1}{default};
        } elsif ($dt =~ /^(\w+)\|(\w+)$/) {
            # the dtype of an optional input, or a dtype when it is absent
            fail("$tw.dtype", "'$1' is not an optional input tensor") if !$tin{$1} || !$tin{$1}{optional};
            fail("$tw.dtype", "unknown dtype '$2'") if !dtype_enum($2);
        } else {
            fail("$tw.dtype", "'$dt' is neither an input tensor, a dtype param nor a dtype")
                if !$tin{$dt} && !($par{$dt} && $par{$dt}{type} eq 'dtype') && !dtype_enum($dt);
        }
        my $s = $t->{shape};
        if (!ref $s) {
            fail("$tw.shape", "no input tensor '$s'") if !$tin{$s};
        } else {
            check_keys("$tw.shape", $s, { like => 'str', set_dims => 'array', ndim => 'str',
                                          dims => 'any', hook => 'str' });
            my @kinds = grep { exists $s->{$_} } qw(like ndim hook);
            push @kinds, 'dims' if exists $s->{dims} && !exists $s->{ndim};
            fail("$tw.shape", 'needs exactly one of like, ndim + dims, dims, hook') if @kinds != 1;
            if (exists $s->{like}) {
                fail("$tw.shape.like", "no input tensor '$s->{like}'") if !$tin{ $s->{like} };
                for my $j (0 .. $#{ $s->{set_dims} // [] }) {
                    my $e = $s->{set_dims}[$j];
                    fail("$tw.shape.set_dims[$j]", 'must be [index expression, value expression]')
                        if ref $e ne 'ARRAY' || @$e != 2 || grep { !is_str($_) } @$e;
                }
            } elsif (exists $s->{set_dims}) {
                fail("$tw.shape.set_dims", 'needs like');
            }
            if (exists $s->{ndim}) {
                fail("$tw.shape.dims", 'with ndim, dims must be a C expression for an int array')
                    if !is_str($s->{dims});
            } elsif (exists $s->{dims}) {
                fail("$tw.shape.dims", 'must be an array of C expressions (or give ndim)')
                    if ref $s->{dims} ne 'ARRAY' || grep { !is_str($_) } @{ $s->{dims} };
            }
            check_hook("$tw.shape.hook", $s->{hook}) if exists $s->{hook};
        }
        $tout{ $t->{arg_name} } = $t;
    }
    for my $i (0 .. $#{ $d->{checks} // [] }) {
        my $c = $d->{checks}[$i];
        check_keys("$w: checks[$i]", $c, { cond => 'str', msg => 'str', args => 'array' },
                   'cond', 'msg');
        fail("$w: checks[$i].args", 'must be an array of C expressions')
            if grep { !is_str($_) } @{ $c->{args} // [] };
    }
    for my $i (0 .. $#{ $d->{priv} // [] }) {
        my $p = $d->{priv}[$i];
        check_keys("$w: priv[$i]", $p, { name => 'str', ctype => 'str', hook => 'str', doc => 'str' },
                   'name', 'ctype', 'hook');
        $seen->("$w: priv[$i].name", $p->{name});
        check_hook("$w: priv[$i].hook", $p->{hook});
        $priv{ $p->{name} } = $p;
    }
    if (my $m = $d->{mem}) {
        check_keys("$w: mem", $m, { kind => 'str', in => 'str', out => 'str', offset => 'str' },
                   'kind');
        fail("$w: mem.kind", "unknown kind '$m->{kind}' (own inplace view concat merge)")
            if $m->{kind} !~ /^(own|inplace|view|concat|merge)$/;
        if ($m->{kind} ne 'own') {
            fail("$w: mem", "kind '$m->{kind}' needs in and out") if !exists $m->{in} || !exists $m->{out};
            fail("$w: mem.in", "no input tensor '$m->{in}'") if !$tin{ $m->{in} };
            fail("$w: mem.out", "no output tensor '$m->{out}'") if !$tout{ $m->{out} };
        }
        if (exists $m->{offset}) {
            fail("$w: mem.offset", 'only a view has an offset') if $m->{kind} ne 'view';
            check_hook("$w: mem.offset", $m->{offset});
        }
    }
    for my $sect (qw(static_run run)) {
        for my $i (0 .. $#{ $d->{$sect} // [] }) {
            my $c = $d->{$sect}[$i];
            check_keys("$w: $sect\[$i]", $c, { call => 'str', args => 'array', when => 'str',
                                               unless => 'str' }, 'call');
            fail("$w: $sect\[$i].args", 'must be an array of C expressions')
                if grep { !is_str($_) } @{ $c->{args} // [] };
            fail("$w: $sect\[$i]", 'give when or unless, not both')
                if exists $c->{when} && exists $c->{unless};
        }
        fail("$w: $sect", 'an abstract op (arch none) has no kernel: describe it in its arch op')
            if $d->{$sect} && $d->{arch} eq 'none' && @{ $d->{$sect} };
    }
    if (my $s = $d->{scratch}) {
        check_keys("$w: scratch", $s, { size => 'str', doc => 'str' }, 'size');
        fail("$w: scratch", 'an abstract op (arch none) has no kernel and no scratch')
            if $d->{arch} eq 'none';
        $seen->("$w: scratch", 'scratch');
    }
    for my $i (0 .. $#{ $d->{onnx} // [] }) {
        my $o = $d->{onnx}[$i];
        my $ow = "$w: onnx[$i]";
        check_keys($ow, $o, { op_type => 'str', since => 'int', until => 'int', inputs => 'array',
                              outputs => 'array', attrs => 'array', consts => 'array',
                              doc => 'str' }, 'op_type', 'since');
        fail("$ow.until", "is before since ($o->{since})")
            if exists $o->{until} && $o->{until} < $o->{since};
        my %bound;
        for my $io (qw(inputs outputs)) {
            my $set = $io eq 'inputs' ? \%tin : \%tout;
            for my $j (0 .. $#{ $o->{$io} // [] }) {
                my $n = $o->{$io}[$j];
                my $nw = "$ow.$io\[$j]";
                fail($nw, 'must be a string') if !is_str($n);
                if ($io eq 'inputs' && $n eq '') {
                    next;   # an ONNX input LightNet ignores
                } elsif ($io eq 'inputs' && $n =~ /^@(\w+)(?::(\w+))?(?:\|(\w+))?$/) {
                    # "@min": a constant input becomes the param; "@min|min_t":
                    # else the input is the (optional) tensor min_t;
                    # "@start:dtype": the constant's dtype name is param dtype
                    fail($nw, "no param '$1'") if !$par{$1};
                    fail($nw, "param '$1' is mapped twice") if $bound{$1}++;
                    fail($nw, "no dtype param '$2'") if defined $2 && !($par{$2} && $par{$2}{type} eq 'dtype');
                    fail($nw, "param '$2' is mapped twice") if defined $2 && $bound{$2}++;
                    fail($nw, "no optional input tensor '$3'") if defined $3 && !($set->{$3} && $set->{$3}{optional});
                    next;
                }
                fail($nw, 'no ' . ($io eq 'inputs' ? 'input' : 'output') . " tensor '$n'")
                    if !$set->{$n};
            }
        }
        for my $j (0 .. $#{ $o->{attrs} // [] }) {
            my $a = $o->{attrs}[$j];
            check_keys("$ow.attrs[$j]", $a, { attr => 'str', param => 'str', default => 'any' },
                       'attr', 'param');
            fail("$ow.attrs[$j].attr", 'must not be empty') if $a->{attr} eq '';
            # "value:dtype": a one-element TENSOR attribute, its value the
            # param value and its dtype's name the param dtype
            my ($ap, $adt) = split /:/, $a->{param}, 2;
            fail("$ow.attrs[$j].param", "no param '$ap'") if !$par{$ap};
            fail("$ow.attrs[$j].param", "param '$ap' is mapped twice") if $bound{$ap}++;
            fail("$ow.attrs[$j].param", "no dtype param '$adt'")
                if defined $adt && !($par{$adt} && $par{$adt}{type} eq 'dtype');
            fail("$ow.attrs[$j].param", "param '$adt' is mapped twice")
                if defined $adt && $bound{$adt}++;
        }
        for my $j (0 .. $#{ $o->{consts} // [] }) {
            my $c = $o->{consts}[$j];
            check_keys("$ow.consts[$j]", $c, { param => 'str', value => 'any' }, 'param', 'value');
            fail("$ow.consts[$j].param", "no param '$c->{param}'") if !$par{ $c->{param} };
            fail("$ow.consts[$j].param", "param '$c->{param}' is mapped twice")
                if $bound{ $c->{param} }++;
        }
    }
    if (defined $d->{aot}) {
        check_aot($d, \%tin, \%tout, \%par, \%priv);
    }
    $d->{_tin} = \%tin;
    $d->{_tout} = \%tout;
    $d->{_par} = \%par;
    $d->{_priv} = \%priv;
}

# "kernel": the one statement of the kernel call, with ${...} placeholders
# (the ln-aot grammar).  ln-aot emits it as it is; run() makes the same call
# on the op's tensors and private data, derived here:
#   ${t} -> t->data (NULL when an optional t is absent; a variadic t: the
#   array of its data), ${t.len}/.ndim/.dims[N] -> t->len/..., ${t.count}
#   -> t_count, ${t.elem_size} -> ln_dtype_size(t->dtype), a param or its
#   _len/_index -> its value, a priv field f: &${f} -> f, ${f}.x -> f->x,
#   ${f} -> *f.  ${t.type} in the kernel's name (ln_rt_relu_${src.type})
#   picks the kernel by t's dtype (f32, f64, f16, s8, u8, s16, u16, s32, u32,
#   s64, u64): run() tests t's dtype for each one the description allows;
#   two tensors' .type in one name give a kernel per pair of dtypes.
my %TYPE_SUFFIX = (float32 => 'f32', float64 => 'f64', float16 => 'f16', int8 => 's8',
                   uint8 => 'u8', int16 => 's16', uint16 => 'u16', int32 => 's32',
                   uint32 => 'u32', int64 => 's64', uint64 => 'u64');
sub split_args {
    my ($s) = @_;
    my @a;
    my ($cur, $depth) = ('', 0);
    for my $ch (split //, $s) {
        if ($ch eq ',' && $depth == 0) { push @a, $cur; $cur = ''; next; }
        $depth++ if $ch =~ /[(\[{]/;
        $depth-- if $ch =~ /[)\]}]/;
        $cur .= $ch;
    }
    push @a, $cur if $cur =~ /\S/;
    s/^\s+|\s+$//g for @a;
    return @a;
}

sub derive_kernel {
    my ($d) = @_;
    return if !exists $d->{kernel};
    my $w = "$d->{_where}: kernel";
    fail($w, 'must be a string: the kernel call with ${...} placeholders') if !is_str($d->{kernel});
    fail($w, 'states the call once: run and aot are derived from it, drop them')
        if exists $d->{run} || exists $d->{aot};
    my $k = $d->{kernel};
    my ($fn, $args) = $k =~ /^\s*([A-Za-z_][\w\$\{\}.]*)\s*\((.*)\)\s*;?\s*$/s;
    fail($w, "must be one call 'fn(args...)': '$k'") if !defined $fn;
    my %t = map { ($_->{arg_name} => $_) } grep { ref $_ eq 'HASH' } @{ $d->{tensors_in} // [] },
                                                                   @{ $d->{tensors_out} // [] };
    $t{scratch} = { arg_name => 'scratch', optional => 1 } if $d->{scratch};
    my %par = map { ($_->{arg_name} => $_) } grep { ref $_ eq 'HASH' } @{ $d->{params} // [] };
    my %priv = map { ($_->{name} => $_) } grep { ref $_ eq 'HASH' } @{ $d->{priv} // [] };
    my $ph = sub {
        my ($n, $sfx) = @_;
        my $x = $t{$n};
        if ($x) {
            return $x->{variadic} ? $n : $x->{optional} ? "$n ? $n->data : NULL" : "$n->data" if !$sfx;
            return "${n}_count" if $sfx eq 'count';
            return $x->{variadic} ? "ln_dtype_size(${n}_dtype)" : "ln_dtype_size($n->dtype)"
                if $sfx eq 'elem_size';
            return "$n->$sfx" if $sfx =~ /^(len|ndim|dims\[\d+\])$/;
        } elsif (!$sfx) {
            return "*$n" if $priv{$n};
            return $n if $par{$n};
            my ($b) = $n =~ /^(.*)_(?:len|index)$/;
            return $n if defined $b && $par{$b};
        }
        fail($w, "'\${$n" . ($sfx ? ".$sfx" : '') . "}' names no tensor, param or priv field of $d->{optype}");
    };
    my @c;
    for my $a (split_args($args)) {
        $a =~ s/&\$\{(\w+)\}/$priv{$1} ? $1 : fail($w, "'&\${$1}': '$1' is not a priv field")/ge;
        $a =~ s/\$\{(\w+)\}\.(\w+)/$priv{$1} ? "$1->$2" : fail($w, "'\${$1}.$2': '$1' is not a priv field")/ge;
        $a =~ s/\$\{(\w+)(?:\.(len|ndim|elem_size|count|dims\[\d+\]))?\}/$ph->($1, $2)/ge;
        fail($w, "bad placeholder in '$a'") if $a =~ /\$/;
        push @c, $a;
    }
    my @run;
    if ($fn =~ /\$\{\w+\.type\}/) {
        # one kernel per dtype of each tensor named (the cross product when
        # the name has two: ln_rt_pow_${src1.type}_${src2.type})
        my @combos = ({ f => $fn, when => [] });
        my %done;
        while ($fn =~ /\$\{(\w+)\.type\}/g) {
            my $n = $1;
            next if $done{$n}++;
            my $x = $t{$n};
            my @dts;
            if ($x && !$x->{variadic}) {
                # a dtype list, or the one of the input (or default) the dtype names
                my $xd = $x->{dtype};
                @dts = ref $xd eq 'ARRAY' ? @$xd : ();
                if (!@dts && is_str($xd) && $xd =~ /^(\w+)(?:\|(\w+))?$/ && $t{$1} && ref $t{$1}{dtype} eq 'ARRAY') {
                    @dts = @{ $t{$1}{dtype} };
                    push @dts, $2 if defined $2 && !grep { $_ eq $2 } @dts;
                }
            }
            fail($w, "'\${$n.type}': '$n' is not a tensor of $d->{optype} with a dtype list")
                if !@dts;
            my @next;
            for my $c (@combos) {
                for my $dt (@dts) {
                    fail($w, "'\${$n.type}': no kernel suffix for dtype $dt") if !$TYPE_SUFFIX{$dt};
                    (my $f = $c->{f}) =~ s/\$\{$n\.type\}/$TYPE_SUFFIX{$dt}/g;
                    push @next, { f => $f, when => [@{ $c->{when} }, "$n->dtype == " . dtype_enum($dt)] };
                }
            }
            @combos = @next;
        }
        @run = map { { call => $_->{f}, args => [@c], when => join(' && ', @{ $_->{when} }) } } @combos;
    } else {
        fail($w, "a placeholder in the kernel's name must be \${<tensor>.type}") if $fn =~ /\$/;
        @run = ({ call => $fn, args => \@c });
    }
    $d->{run} = \@run;
    ($d->{aot} = $k) =~ s/\s*;?\s*$/;/;
    delete $d->{kernel};
}

# The ln-aot template: every ${...} names something the op has (grammar in
# docs/op-descriptions.md), and the call is the kernel run() calls first, so
# the interpreter and emitted code agree.
sub check_aot {
    my ($d, $tin, $tout, $par, $priv) = @_;
    my $w = "$d->{_where}: aot";
    my $aot = $d->{aot};
    fail($w, 'an abstract op (arch none) has no kernel: describe it in its arch op')
        if $d->{arch} eq 'none';
    my @run = @{ $d->{run} // [] };
    fail($w, 'needs a run entry (ln-aot emits the call run() makes)') if !@run;
    my ($fn) = $aot =~ /^\s*([A-Za-z_][\w\$\{\}.]*)\s*\(/;
    fail($w, "must start with a function call: '$aot'") if !defined $fn;
    (my $fre = quotemeta $fn) =~ s/\\\$\\\{\w+\\\.type\\\}/[a-z0-9]+/g;
    fail($w, "calls $fn, but run calls $run[0]{call}: both must call the same kernel")
        if $run[0]{call} !~ /^$fre$/;
    my $rest = $aot;
    $rest =~ s/\$\{[^{}]*\}//g;
    fail($w, "'\$' outside a \${...} placeholder") if $rest =~ /\$/;
    while ($aot =~ /\$\{([^{}]*)\}/g) {
        my $ph = $1;
        my ($name, $sfx) = $ph =~ /^([a-z_][a-z0-9_]*)(\.(?:len|ndim|elem_size|count|type|dims\[\d+\]))?$/;
        fail($w, "bad placeholder '\${$ph}' (\${name}, \${name.len}, \${name.ndim}, "
             . "\${name.elem_size}, \${name.dims[N]}, \${name.count})") if !defined $name;
        my $t = $tin->{$name} || $tout->{$name};
        my $is_tensor = $t || ($name eq 'scratch' && $d->{scratch});
        if ($sfx) {
            fail($w, "'\${$ph}': '$name' is not a tensor of $d->{optype}") if !$is_tensor;
            fail($w, "'\${$ph}': only a variadic tensor has a count")
                if $sfx eq '.count' && !($t && $t->{variadic});
            fail($w, "'\${$ph}': a variadic tensor has only .count and .elem_size")
                if $t && $t->{variadic} && $sfx !~ /^\.(count|elem_size)$/;
            fail($w, "'\${$ph}': .type names a kernel, in the call's name only")
                if $sfx eq '.type' && index($fn, "\${$ph}") < 0;
            next;
        }
        next if $is_tensor || $par->{$name} || $priv->{$name};
        my $base = $name =~ /^(.*)_len$/ ? $1 : undef;
        next if defined $base && $par->{$base} && $par->{$base}{type} =~ /^array/;
        $base = $name =~ /^(.*)_index$/ ? $1 : undef;
        next if defined $base && $par->{$base} && $par->{$base}{enum};
        fail($w, "'\${$ph}': $d->{optype} has no tensor, param or priv field '$name'");
    }
}

for my $d (@descs) {
    fail("$d->{_where}: extends", "an arch op extends an abstract op or another arch op of the same arch")
        if defined $d->{extends} && $by{ $d->{extends} }{arch} ne 'none'
           && $by{ $d->{extends} }{arch} ne $d->{arch};
    derive_kernel($d);
    validate($d);
}

#
# C generation.
#
my %VALUE_FIELD = (
    'number int' => 'value_int', 'number float' => 'value_float',
    'number double' => 'value_double', 'array_number int' => 'value_array_int',
    'array_number float' => 'value_array_float', 'array_number double' => 'value_array_double',
);

# C type of a param's value local ("const int *" for arrays).
sub param_ctype {
    my ($p) = @_;
    my $t = $p->{type};
    return $p->{ctype} if $t eq 'number';
    return 'ln_bool' if $t eq 'bool';
    return 'const char *' if $t eq 'string';
    return 'ln_dtype' if $t eq 'dtype';
    return "const $p->{ctype} *" if $t eq 'array_number';
    return 'const ln_bool *' if $t eq 'array_bool';
    return 'char *const *';
}

sub param_field {
    my ($p) = @_;
    my $t = $p->{type};
    return $VALUE_FIELD{"$t $p->{ctype}"} if $t =~ /number/;
    return { bool => 'value_bool', string => 'value_string', dtype => 'value_string',
             array_bool => 'value_array_bool', array_string => 'value_array_string' }->{$t};
}

sub c_num { my ($v) = @_; return "$v"; }

# The C for a param's default value (arrays: a static array is emitted
# through $statics).
sub param_default {
    my ($d, $p, $statics) = @_;
    my $v = $p->{default};
    my $t = $p->{type};
    return c_num($v) if $t eq 'number';
    return $v ? 'LN_TRUE' : 'LN_FALSE' if $t eq 'bool';
    return c_str($v) if $t eq 'string';
    return dtype_enum($v) if $t eq 'dtype';
    return 'NULL' if !@$v;
    my $name = "$p->{arg_name}_default";
    my $base = param_ctype($p);
    $base =~ s/\s*\*$//;
    $base = 'char *const' if $t eq 'array_string';
    my @el = map { $t eq 'array_number' ? c_num($_) : $t eq 'array_bool'
                   ? ($_ ? 'LN_TRUE' : 'LN_FALSE') : c_str($_) } @$v;
    push @$statics, "static $base $name\[] = {" . join(', ', @el) . "};\n";
    return $name;
}

sub decl {
    my ($type, $name) = @_;
    return $type =~ /\*$/ ? "    $type$name;\n" : "    $type $name;\n";
}

# ln_opck calls for the count of a variadic tensor (its "variadic"
# comparisons, and the fixed limit of 64 that run() relies on).
sub variadic_count_checks {
    my ($t, $a) = @_;
    my %sym = (LN_CMP_EQ => '==', LN_CMP_NE => '!=', LN_CMP_GT => '>', LN_CMP_GE => '>=',
               LN_CMP_LT => '<', LN_CMP_LE => '<=');
    my $c = '';
    for my $k (cmp_enum('', $t->{variadic}), ['LN_CMP_LE', 64]) {
        my $op = $sym{ $k->[0] };
        $c .= "    LN_OPCK(ln_opck(op_arg, ${a}_count $op $k->[1],\n"
            . "                    \"'$a' should be $op $k->[1] tensors ($a\_0, ...), got %d\", ${a}_count));\n";
    }
    return $c;
}

# The C of an output's dtype: an input's, a dtype param's, a dtype param's
# when given else an input's ("dtype|src"), an optional input's or a
# default ("zero_point|uint8"), or a dtype.
sub dtype_c {
    my ($d, $dt) = @_;
    return "${1}_pe ? $1 : ${2}_te->tensor->dtype"
        if $dt =~ /^(\w+)\|(\w+)$/ && $d->{_par}{$1};
    return "${1}_te ? ${1}_te->tensor->dtype : " . dtype_enum($2) if $dt =~ /^(\w+)\|(\w+)$/;
    return "${dt}_te->tensor->dtype" if $d->{_tin}{$dt};
    return $d->{_par}{$dt} ? $dt : dtype_enum($dt);
}

# pre_run: checks, output shapes and entries, then (pre_rest_c) private
# data and scratch.  With check => 1, only the checks and outputs, as the
# body of "static int <root>_check(op_arg, v, scratch_ok)", which ends by
# copying the locals named in vals ([type, name] pairs) into *v: the ops
# of one family that declare the same tensors and params share it.
# Declarations of one type on one line, in order of first appearance
# ("    ln_param_entry *a_pe, *b_pe;"), at most 90 columns.
sub group_decls {
    my ($decls) = @_;
    my (@types, %names);
    for my $l (split /\n/, $decls) {
        my ($t, $n) = $l =~ /^    ((?:const )?[\w ]*?\w)\s*(\**\w+(?:\[[^\]]*\])?);$/;
        if (!defined $t) {
            push @types, "\0$l";
            next;
        }
        push @types, $t if !$names{$t};
        push @{ $names{$t} }, $n;
    }
    return join('', map { /^\0(.*)$/s ? "$1\n" : wrap("    $_ ", ', ', '', '        ', $names{$_}) . ";\n" } @types);
}

# "if (cond) check;", braces only for several checks
sub checks_if {
    my ($cond, @ck) = @_;
    return '' if !@ck;
    return "    if ($cond)\n        LN_OPCK($ck[0]);\n" if @ck == 1;
    return "    if ($cond) {\n" . join('', map { "        LN_OPCK($_);\n" } @ck) . "    }\n";
}

sub pre_run_c {
    my ($d, $refs_pre, $priv_params, $statics, %o) = @_;
    my $o = $d->{optype};
    my (@tin, @tout, @par);
    @tin = @{ $d->{tensors_in} // [] };
    @tout = @{ $d->{tensors_out} // [] };
    @par = @{ $d->{params} // [] };
    my ($decls, $body) = ('', '');
    my $need = sub { my ($n) = @_; return $refs_pre->{$n} || $priv_params->{$n}; };

    # tensors in
    my @req = grep { !$_->{optional} } @tin;
    my ($vin) = grep { $_->{variadic} } @tin;
    if ($vin) {
        $body .= "    LN_OPCK(ln_opck_tensors_in_len(op_arg, LN_CMP_GE, " . (@tin - 1) . "));\n" if @tin > 1;
    } elsif (@tin) {
        $body .= @req == @tin
            ? "    LN_OPCK(ln_opck_tensors_in_len(op_arg, LN_CMP_EQ, " . scalar(@tin) . "));\n"
            : "    LN_OPCK(ln_opck_tensors_in_len(op_arg, LN_CMP_GE, " . scalar(@req) . "));\n"
              . "    LN_OPCK(ln_opck_tensors_in_len(op_arg, LN_CMP_LE, " . scalar(@tin) . "));\n";
    }
    for my $t (@tin) {
        my $a = $t->{arg_name};
        $decls .= decl('ln_tensor_entry *', "${a}_te");
        my @ck;
        for my $dt ($t->{dtype} ? [ @{ $t->{dtype} } ] : ()) {
            if (@$dt == 1) {
                push @ck, "ln_opck_tensor_dtype(op_arg, \"$a\", ${a}_te, " . dtype_enum($dt->[0]) . ')';
            } else {
                push @ck, "ln_opck_tensor_dtype_in(op_arg, \"$a\", ${a}_te, "
                    . join(' | ', map { '(1u << ' . dtype_enum($_) . ')' } @$dt) . ')';
            }
        }
        if (exists $t->{ndim}) {
            push @ck, "ln_opck_tensor_ndim(op_arg, \"$a\", ${a}_te, $_->[0], $_->[1])"
                for cmp_enum('', $t->{ndim});
        }
        push @ck, "ln_opck_tensor_isstatic(op_arg, \"$a\", ${a}_te)" if $t->{static};
        for my $rel (qw(same_shape same_dtype)) {
            next if !$t->{$rel};
            my $b = $t->{$rel};
            push @ck, "ln_opck_tensor_$rel(op_arg, \"$a\", ${a}_te, \"$b\", ${b}_te)";
        }
        if ($t->{variadic}) {
            $decls .= decl('int', "${a}_count");
            my $f = @tin - 1;
            my @vck = map { s/\b${a}_te\b/${a}_ite/gr } grep { !/same_\w+\(op_arg, "$a", ${a}_te, "$a", ${a}_te\)/ } @ck;
            @vck = map { s/\(op_arg, "$a", /(op_arg, ${a}_an, /r } @vck;
            if (grep { $_ eq $a } map { $t->{$_} // () } qw(same_shape same_dtype)) {
                for my $rel (qw(same_shape same_dtype)) {
                    push @vck, "ln_opck_tensor_$rel(op_arg, ${a}_an, ${a}_ite, \"${a}_0\", ${a}_te)"
                        if ($t->{$rel} // '') eq $a;
                }
            }
            $body .= "    ${a}_count = ln_tensor_list_length(op_arg->tensors_in)" . ($f ? " - $f" : '') . ";\n"
                . variadic_count_checks($t, $a);
            $body .= "    ${a}_te = NULL;\n"
                . "    for (int ${a}_i = 0; ${a}_i < ${a}_count; ${a}_i++) {\n"
                . "        char ${a}_an[32];\n"
                . "        ln_tensor_entry *${a}_ite;\n\n"
                . "        snprintf(${a}_an, sizeof ${a}_an, \"${a}_%d\", ${a}_i);\n"
                . "        LN_OPCK(ln_opck_tensor_in_exist(op_arg, ${a}_an, &${a}_ite));\n"
                . "        if (${a}_i == 0)\n"
                . "            ${a}_te = ${a}_ite;\n";
            $body .= "        LN_OPCK($_);\n" for @vck;
            $body .= "    }\n";
        } elsif ($t->{optional}) {
            $body .= "    LN_OPCK(ln_opck_tensor_in_opt(op_arg, \"$a\", &${a}_te));\n";
            $body .= checks_if("${a}_te", @ck);
        } else {
            $body .= "    LN_OPCK(ln_opck_tensor_in_exist(op_arg, \"$a\", &${a}_te));\n";
            $body .= "    LN_OPCK($_);\n" for @ck;
        }
        if ($refs_pre->{$a}) {
            $decls .= decl('const ln_tensor *', $a);
            $body .= $t->{optional} || $t->{variadic} ? "    $a = ${a}_te ? ${a}_te->tensor : NULL;\n"
                                    : "    $a = ${a}_te->tensor;\n";
        }
    }

    # params
    for my $p (@par) {
        my $a = $p->{arg_name};
        my $ty = $PARAM_TYPES{ $p->{type} };
        my $f = param_field($p);
        my $isarr = $p->{type} =~ /^array/;
        $decls .= decl('ln_param_entry *', "${a}_pe");
        my $has_def = exists $p->{default};
        my @ck;
        if (exists $p->{checks}) {
            my $fn = $isarr ? 'ln_opck_param_array_number' : 'ln_opck_param_number';
            push @ck, "$fn(op_arg, ${a}_pe, $_->[0], " . c_num($_->[1]) . ')'
                for cmp_enum('', $p->{checks});
        }
        if (exists $p->{array_len}) {
            push @ck, "ln_opck_param_array_len(op_arg, ${a}_pe, $_->[0], $_->[1])"
                for cmp_enum('', $p->{array_len});
        }
        if ($p->{enum}) {
            my $ch = "${a}_choices";
            push @$statics, "static const char *const $ch\[] = {"
                . join(', ', map { c_str($_) } @{ $p->{enum} }) . ", NULL};\n";
            $decls .= decl('int', "${a}_index");
            if (exists $p->{default}) {
                my ($di) = grep { $p->{enum}[$_] eq $p->{default} } 0 .. $#{ $p->{enum} };
                $body .= "    ${a}_index = " . ($di // -1) . ";\n";
            }
            push @ck, "ln_opck_param_string_in(op_arg, ${a}_pe, $ch, &${a}_index)";
        }
        if ($has_def) {
            $body .= "    LN_OPCK(ln_opck_param_type_if(op_arg, \"$a\", $ty, &${a}_pe));\n";
            $body .= checks_if("${a}_pe", @ck);
        } else {
            $body .= "    LN_OPCK(ln_opck_param_exist(op_arg, \"$a\", $ty, &${a}_pe));\n";
            $body .= "    LN_OPCK($_);\n" for @ck;
        }
        my $val = $p->{type} eq 'dtype' ? "ln_dtype_from_name(${a}_pe->value_string)"
                                        : "${a}_pe->$f";
        if ($need->($a) || $p->{type} eq 'dtype') {
            my $def = $has_def ? param_default($d, $p, $statics) : undef;
            $decls .= decl(param_ctype($p), $a);
            $body .= $has_def ? "    $a = ${a}_pe ? $val : $def;\n" : "    $a = $val;\n";
        }
        if ($p->{type} eq 'dtype') {
            my $cond = $has_def ? "!${a}_pe || $a != LN_DTYPE_UNKNOWN" : "$a != LN_DTYPE_UNKNOWN";
            my $sval = $has_def ? "${a}_pe ? ${a}_pe->value_string : \"\"" : "${a}_pe->value_string";
            $body .= "    LN_OPCK(ln_opck(op_arg, $cond,\n"
                . "                    \"'$a' is '%s', not a known dtype\", $sval));\n";
        }
        if ($isarr && $need->("${a}_len")) {
            $decls .= decl('int', "${a}_len");
            $body .= $has_def
                ? "    ${a}_len = ${a}_pe ? ${a}_pe->array_len : " . scalar(@{ $p->{default} }) . ";\n"
                : "    ${a}_len = ${a}_pe->array_len;\n";
        }
    }

    # custom checks
    for my $c (@{ $d->{checks} // [] }) {
        my $args = join('', map { ", $_" } @{ $c->{args} // [] });
        $body .= "    LN_OPCK(ln_opck(op_arg, $c->{cond},\n"
            . "                    " . c_str($c->{msg}) . "$args));\n";
    }

    # tensors out: names first, then shapes (hooks may fail), then entries
    my ($vout) = grep { $_->{variadic} } @tout;
    my $nsc = '';
    my $scr = $d->{scratch} || $o{scratch_ok};
    if ($scr) {
        $decls .= decl('ln_bool', 'has_scratch');
        $body .= $o{check} ? "    has_scratch = scratch_ok && ln_tensor_list_find_name(op_arg->tensors_out, \"scratch\") != NULL;\n"
                           : "    has_scratch = ln_tensor_list_find_name(op_arg->tensors_out, \"scratch\") != NULL;\n";
        $nsc = ' - has_scratch';
    }
    if ($vout) {
        my $a = $vout->{arg_name};
        $decls .= decl('int', "${a}_count");
        $body .= "    ${a}_count = ln_tensor_list_length(op_arg->tensors_out)" . (@tout > 1 ? ' - ' . (@tout - 1) : '') . "$nsc;\n"
            . variadic_count_checks($vout, $a);
    } elsif (grep { $_->{optional} } @tout) {
        # optional outputs (LayerNormalization's Mean): a range
        my $sc = $scr ? ' + has_scratch' : '';
        my $nreq = grep { !$_->{optional} } @tout;
        $body .= "    LN_OPCK(ln_opck_tensors_out_len(op_arg, LN_CMP_GE, $nreq$sc));\n"
            . "    LN_OPCK(ln_opck_tensors_out_len(op_arg, LN_CMP_LE, " . scalar(@tout) . "$sc));\n";
    } elsif (@tout || $scr) {
        my $n = scalar(@tout) . ($scr ? ' + has_scratch' : '');
        $body .= "    LN_OPCK(ln_opck_tensors_out_len(op_arg, LN_CMP_EQ, $n));\n";
    }
    for my $t (@tout) {
        my $a = $t->{arg_name};
        $decls .= decl('const char *', "${a}_name");
        if ($t->{variadic}) {
            $body .= "    for (int ${a}_i = 0; ${a}_i < ${a}_count; ${a}_i++) {\n"
                . "        char ${a}_an[32];\n\n"
                . "        snprintf(${a}_an, sizeof ${a}_an, \"${a}_%d\", ${a}_i);\n"
                . "        LN_OPCK(ln_opck_tensor_out_new(op_arg, ${a}_an, &${a}_name));\n"
                . "    }\n";
            next;
        }
        if ($t->{optional}) {
            $body .= "    ${a}_name = NULL;\n"
                . "    if (ln_tensor_list_find_name(op_arg->tensors_out, \"$a\"))\n"
                . "        LN_OPCK(ln_opck_tensor_out_new(op_arg, \"$a\", &${a}_name));\n";
            next;
        }
        $body .= "    LN_OPCK(ln_opck_tensor_out_new(op_arg, \"$a\", &${a}_name));\n";
    }
    my $create = '';
    my $need_string = 0;
    for my $t (@tout) {
        my $a = $t->{arg_name};
        my $s = $t->{shape};
        my ($ndim, $dims);
        if ($t->{variadic}) {
            my $dt = $t->{dtype};
            my $dtc = dtype_c($d, $dt);
            my ($nd, $dm) = ("${s}_te->tensor->ndim", "${s}_te->tensor->dims");
            if (ref $s) {
                $decls .= decl('int', "${a}_ndim");
                $decls .= decl('int', "${a}_dims[LN_MAXDIM]");
                ($nd, $dm) = ("${a}_ndim", "${a}_dims");
                $body .= "    for (int ${a}_i = 0; ${a}_i < ${a}_count; ${a}_i++)\n"
                    . "        LN_OPCK($s->{hook}(op_arg, ${a}_i, &${a}_ndim, ${a}_dims));\n";
            }
            $create .= "\n    for (int ${a}_i = 0; ${a}_i < ${a}_count; ${a}_i++) {\n"
                . "        char ${a}_an[32];\n\n"
                . "        snprintf(${a}_an, sizeof ${a}_an, \"${a}_%d\", ${a}_i);\n"
                . "        ${a}_name = ln_tensor_list_find_name(op_arg->tensors_out, ${a}_an);\n";
            $create .= "        $s->{hook}(op_arg, ${a}_i, &${a}_ndim, ${a}_dims);\n" if ref $s;
            $create .= "        ln_op_output_create(op_arg, ${a}_name, $dtc, $nd, $dm, "
                . ($t->{static} ? 'LN_OP_OUT_STATIC' : '0') . ");\n    }\n";
            next;
        }
        if (!ref $s) {
            ($ndim, $dims) = ("${s}_te->tensor->ndim", "${s}_te->tensor->dims");
        } elsif (exists $s->{like}) {
            my $l = $s->{like};
            ($ndim, $dims) = ("${l}_te->tensor->ndim", "${l}_te->tensor->dims");
            if ($s->{set_dims} && @{ $s->{set_dims} }) {
                $decls .= decl('int', "${a}_dims[LN_MAXDIM]");
                $body .= "    memcpy(${a}_dims, ${l}_te->tensor->dims, sizeof ${a}_dims);\n";
                $body .= "    ${a}_dims[$_->[0]] = $_->[1];\n" for @{ $s->{set_dims} };
                $dims = "${a}_dims";
                $need_string = 1;
            }
        } elsif (exists $s->{hook}) {
            $decls .= decl('int', "${a}_ndim");
            $decls .= decl('int', "${a}_dims[LN_MAXDIM]");
            $body .= "    LN_OPCK($s->{hook}(op_arg, &${a}_ndim, ${a}_dims));\n";
            ($ndim, $dims) = ("${a}_ndim", "${a}_dims");
        } elsif (exists $s->{ndim}) {
            ($ndim, $dims) = ($s->{ndim}, $s->{dims});
        } else {
            my @e = @{ $s->{dims} };
            $decls .= decl('int', "${a}_dims[" . (@e || 1) . ']');
            $body .= "    ${a}_dims[$_] = $e[$_];\n" for 0 .. $#e;
            ($ndim, $dims) = (scalar(@e), "${a}_dims");
        }
        my $dt = $t->{dtype};
        my $dtc = dtype_c($d, $dt);
        my @fl = ($t->{static} ? 'LN_OP_OUT_STATIC' : (), $t->{io} ? 'LN_OP_OUT_IO' : ());
        my $c1 = "ln_op_output_create(op_arg, ${a}_name, $dtc, $ndim, $dims, "
            . (@fl ? join(' | ', @fl) : '0') . ");\n";
        $c1 = $t->{optional} ? "    if (${a}_name)\n        $c1" : "    $c1";
        $create .= "\n" if $create eq '';
        $create .= $c1;
    }
    $body .= $create;
    for my $t (grep { $_->{io} } @tin) {
        my $a = $t->{arg_name};
        $body .= $t->{optional} ? "    if (${a}_te)\n        ${a}_te->is_io = LN_TRUE;\n"
                                : "\n    ${a}_te->is_io = LN_TRUE;\n";
    }

    if ($o{check}) {
        if (!$o{plain}) {
            $body = "    (void)scratch_ok;\n$body" if !$o{scratch_ok};
            $body = "    (void)v;\n$body" if !@{ $o{vals} };
        }
        $body .= "\n" if @{ $o{vals} };
        $body .= "    v->$_->[1] = $_->[1];\n" for @{ $o{vals} };
        return (group_decls($decls) . "\n$body    return 0;\n", $need_string);
    }
    my ($rd, $rb) = pre_rest_c($d, $priv_params, '');
    $decls .= $rd;
    $body .= $rb;
    return (group_decls($decls) . "\n$body    return 0;\n", $need_string);
}

# pre_run after the outputs: the private data run() needs and the kernel
# scratch.  $v prefixes the values pre_run computed ('' for its locals,
# 'v.' for the family's shared check results).  Returns (decls, body).
sub pre_rest_c {
    my ($d, $priv_params, $v) = @_;
    my $o = $d->{optype};
    my @par = @{ $d->{params} // [] };
    my ($decls, $body) = ('', '');
    # private data for run
    my @pp = grep { $priv_params->{ $_->{arg_name} } } @par;
    my @pv = @{ $d->{priv} // [] };
    if (@pp || @pv || grep { $priv_params->{"$_->{arg_name}_index"} } @par) {
        $decls .= decl("struct ${o}_priv *", 'priv');
        $body .= "\n    priv = ln_alloc(sizeof *priv);\n";
        for my $p (@pp) {
            my $a = $p->{arg_name};
            $body .= "    priv->$a = $v$a;\n";
            $body .= "    priv->${a}_len = $v${a}_len;\n" if $p->{type} =~ /^array/;
        }
        $body .= "    priv->$_->{arg_name}_index = $v$_->{arg_name}_index;\n"
            for grep { $priv_params->{"$_->{arg_name}_index"} } @par;
        $body .= "    $_->{hook}(op_arg, &priv->$_->{name});\n" for @pv;
        $body .= "    op_arg->priv = priv;\n";
    }
    if (my $sc = $d->{scratch}) {
        # a priv field in the size expression is a pointer to it
        my $size = $sc->{size};
        for my $f (map { $_->{name} } @pv) {
            $size =~ s/(?<![\w.>])\Q$f\E\b/(&priv->$f)/g;
        }
        $body .= "    /* kernel scratch: an output no op reads, planned in the arena */\n"
            . "    LN_OPCK(ln_op_add_scratch(op_arg, $size, ${v}has_scratch));\n";
    }
    return ($decls, $body);
}

# run / static_run: locals for what the calls use, then the calls.
# The kernels that return a status (int: LN_RT_OK or LN_RT_ARG_ERROR, as
# ln_rt.h says), read from the runtime's headers once: run() turns a
# refusal into an error naming the op, as emitted code returns
# <NAME>_ERR_KERNEL.
my %RT_STATUS;
sub rt_status {
    my ($fn) = @_;
    if (!%RT_STATUS) {
        $RT_STATUS{''} = 1;
        for my $h (split /:/, $opt{'rt-headers'}) {
            open my $fh, '<', $h or fail($h, "cannot read: $!");
            local $/;
            my $text = <$fh>;
            $RT_STATUS{$1} = 1 while $text =~ /(?:^|[;}])\s*int\s+(ln_rt_\w+)\s*\(/mg;
        }
    }
    return $RT_STATUS{$fn};
}

sub run_c {
    my ($d, $sect, $has_priv) = @_;
    my $o = $d->{optype};
    my @calls = @{ $d->{$sect} };
    my $refs = c_refs(map { (@{ $_->{args} // [] }, $_->{when}, $_->{unless}) } @calls);
    my ($decls, $body, $vloop) = ('', '', '');
    my $uses_priv = 0;
    my @scratch = $d->{scratch} ? ({ arg_name => 'scratch', optional => 1 }) : ();
    for my $t (@{ $d->{tensors_in} // [] }, @{ $d->{tensors_out} // [] }, @scratch) {
        my $a = $t->{arg_name};
        my $fn = $d->{_tin}{$a} ? 'ln_op_tensor_in' : 'ln_op_tensor_out';
        if ($t->{variadic} && ($refs->{$a} || $refs->{"${a}_count"} || $refs->{"${a}_dtype"})) {
            my $in = $d->{_tin}{$a};
            $decls .= "    " . ($in ? 'const void *' : 'void *') . "$a\[64];   /* pre_run checked the count */\n"
                . "    int ${a}_count = 0;\n";
            $decls .= "    ln_dtype ${a}_dtype = LN_DTYPE_UNKNOWN;\n" if $refs->{"${a}_dtype"};
            $vloop .= "    for (;;) {\n"
                . "        char an[32];\n"
                . "        ln_tensor_entry *te;\n\n"
                . "        snprintf(an, sizeof an, \"${a}_%d\", ${a}_count);\n"
                . "        if (!(te = $fn(op_arg, an)))\n"
                . "            break;\n"
                . ($refs->{"${a}_dtype"} ? "        ${a}_dtype = te->tensor->dtype;\n" : '')
                . "        $a\[${a}_count++] = te->tensor->data;\n"
                . "    }\n";
            next;
        }
        next if !$refs->{$a};
        $decls .= $t->{optional}
            ? "    ln_tensor_entry *${a}_te = $fn(op_arg, \"$a\");\n"
              . "    ln_tensor *$a = ${a}_te ? ${a}_te->tensor : NULL;\n"
            : "    ln_tensor *$a = $fn(op_arg, \"$a\")->tensor;\n";
    }
    my $pdecl = '';
    for my $p (@{ $d->{params} // [] }) {
        my $a = $p->{arg_name};
        if ($refs->{$a}) {
            my $ct = param_ctype($p);
            $pdecl .= "    $ct" . ($ct =~ /\*$/ ? "" : " ") . "$a = priv->$a;\n";
            $uses_priv = 1;
        }
        if ($refs->{"${a}_len"}) {
            $pdecl .= "    int ${a}_len = priv->${a}_len;\n";
            $uses_priv = 1;
        }
        if ($p->{enum} && $refs->{"${a}_index"}) {
            $pdecl .= "    int ${a}_index = priv->${a}_index;\n";
            $uses_priv = 1;
        }
    }
    for my $p (@{ $d->{priv} // [] }) {
        next if !$refs->{ $p->{name} };
        $pdecl .= "    const $p->{ctype} *$p->{name} = &priv->$p->{name};\n";
        $uses_priv = 1;
    }
    $decls = "    const struct ${o}_priv *priv = op_arg->priv;\n$decls" if $uses_priv;
    $decls .= $pdecl;
    $body .= "$vloop\n" if $vloop;
    for my $c (@calls) {
        my $call = "$c->{call}(" . join(', ', @{ $c->{args} // [] }) . ")";
        my $cond;
        if (exists $c->{when}) {
            $cond = $c->{when};
        } elsif (exists $c->{unless}) {
            $cond = $c->{unless} =~ /^[\w.>-]+$/ ? "!$c->{unless}" : "!($c->{unless})";
        }
        if (rt_status($c->{call})) {
            $call = "$call != LN_RT_OK";
            $call = "$cond && $call" if defined $cond;
            $body .= "    if ($call)\n        return ln_op_kernel_error(op_arg, \"$c->{call}\");\n";
        } elsif (defined $cond) {
            $body .= "    if ($cond)\n        $call;\n";
        } else {
            $body .= "    $call;\n";
        }
    }
    $decls = "    (void)op_arg;\n" if $decls eq '';
    return "$decls\n$body    return 0;\n";
}

sub post_run_c {
    my ($d, $has_priv) = @_;
    my $body = '';
    my $decls2 = $d->{scratch} ? "    ln_tensor_entry *scratch_te;\n" : '';
    for my $t (grep { $_->{io} } @{ $d->{tensors_in} // [] }) {
        my $a = $t->{arg_name};
        $body .= "    ${a}_te = ln_op_tensor_in(op_arg, \"$a\");\n"
            . "    if (${a}_te)\n        ${a}_te->is_io = LN_FALSE;\n";
    }
    my $decls = join('', map { "    ln_tensor_entry *$_->{arg_name}_te;\n" }
                     grep { $_->{io} } @{ $d->{tensors_in} // [] });
    $decls .= $decls2;
    $body = "$decls\n$body" if $decls;
    for my $t (@{ $d->{tensors_out} // [] }) {
        my $a = $t->{arg_name};
        if ($t->{variadic}) {
            $body .= "    for (int i = 0;; i++) {\n"
                . "        char an[32];\n"
                . "        const char *name;\n\n"
                . "        snprintf(an, sizeof an, \"${a}_%d\", i);\n"
                . "        if (!(name = ln_tensor_list_find_name(op_arg->tensors_out, an)))\n"
                . "            break;\n"
                . "        ln_tensor_table_remove(op_arg->tensor_table, name);\n"
                . "    }\n";
            next;
        }
        if ($t->{optional}) {
            $body .= "    if (ln_tensor_list_find_name(op_arg->tensors_out, \"$a\"))\n"
                . "        ln_tensor_table_remove(op_arg->tensor_table,\n"
                . "                               ln_tensor_list_find_name(op_arg->tensors_out, \"$a\"));\n";
            next;
        }
        $body .= "    ln_tensor_table_remove(op_arg->tensor_table,\n"
            . "                           ln_tensor_list_find_name(op_arg->tensors_out, \"$a\"));\n";
    }
    if ($d->{scratch}) {
        # the tensors_out entry stays: it is part of the op, like an IR field
        $body .= "    scratch_te = ln_op_tensor_out(op_arg, \"scratch\");\n"
            . "    if (scratch_te && ln_streq(scratch_te->creater, op_arg->name))\n"
            . "        ln_tensor_table_remove(op_arg->tensor_table, scratch_te->name);\n";
    }
    $body .= "    ln_free(op_arg->priv);\n    op_arg->priv = NULL;\n" if $has_priv;
    return $body eq '' ? '' : "$body    return 0;\n";
}

my %files;
my $tdir = $opt{templates};
my $canon = JSON::PP->new->canonical;
my %KIND = (own => 'LN_MEMPLAN_OWN', inplace => 'LN_MEMPLAN_INPLACE',
            view => 'LN_MEMPLAN_VIEW', concat => 'LN_MEMPLAN_CONCAT',
            merge => 'LN_MEMPLAN_MERGE');

# What a description's pre_run and run refer to: the C identifiers of its
# snippets, and the params run() needs (they go into the private struct).
for my $d (@descs) {
    my @run_calls = map { @{ $d->{$_} // [] } } qw(run static_run);
    my $refs_run = c_refs(map { (@{ $_->{args} // [] }, $_->{when}, $_->{unless}) } @run_calls);
    my @pre_snips;
    for my $c (@{ $d->{checks} // [] }) { push @pre_snips, $c->{cond}, @{ $c->{args} // [] }; }
    for my $t (@{ $d->{tensors_out} // [] }) {
        my $s = $t->{shape};
        next if !ref $s;
        push @pre_snips, map { @$_ } @{ $s->{set_dims} // [] };
        push @pre_snips, $s->{ndim} if exists $s->{ndim};
        push @pre_snips, ref $s->{dims} ? @{ $s->{dims} } : $s->{dims} if exists $s->{dims};
    }
    push @pre_snips, $d->{scratch}{size} if $d->{scratch};
    $d->{_refs_pre} = c_refs(@pre_snips);
    $d->{_refs_run} = $refs_run;
    $d->{_run_calls} = \@run_calls;
    my %pp;
    for my $p (@{ $d->{params} // [] }) {
        my $a = $p->{arg_name};
        if ($refs_run->{$a} || $refs_run->{"${a}_len"}) {
            $pp{$a} = 1;
            $pp{"${a}_len"} = 1 if $p->{type} =~ /^array/;
        }
        $pp{"${a}_index"} = 1 if $p->{enum} && $refs_run->{"${a}_index"};
    }
    $d->{_priv_params} = \%pp;
}

# The checks a family member adds to its root's (the root's must come
# first, unchanged), or undef when it cannot share the root's check: other
# tensors or params, or an added check that names something other than a
# tensor or a param.
sub extra_checks {
    my ($root, $d) = @_;
    for my $k (qw(tensors_in tensors_out params)) {
        return undef if $canon->encode($root->{$k} // []) ne $canon->encode($d->{$k} // []);
    }
    my @rc = @{ $root->{checks} // [] };
    my @dc = @{ $d->{checks} // [] };
    return undef if @dc < @rc;
    for my $i (0 .. $#rc) {
        return undef if $canon->encode($rc[$i]) ne $canon->encode($dc[$i]);
    }
    my @x = @dc[ scalar(@rc) .. $#dc ];
    my %known = map { ($_->{arg_name} => 1) } @{ $d->{tensors_in} // [] }, @{ $d->{params} // [] };
    for my $c (@x) {
        my $r = c_refs($c->{cond}, @{ $c->{args} // [] });
        for my $n (keys %$r) {
            return undef if !$known{$n} && $n !~ /^(op_arg|ln_\w+|NULL|LN_\w+|long|int|double|float|size_t|char|unsigned|const)$/;
        }
    }
    return \@x;
}

# $first . the items joined by $sep, in lines of at most 90 columns ending
# in $eol, the next ones starting with $indent.
sub wrap {
    my ($first, $sep, $eol, $indent, $items) = @_;
    my ($out, $line) = ('', $first);
    for my $i (0 .. $#$items) {
        my $it = $items->[$i] . ($i < $#$items ? $sep : '');
        if (length($line . $it) > 90 && $line ne $first && $line ne $indent) {
            $line =~ s/\s+$//;
            $out .= "$line$eol\n";
            $line = $indent;
        }
        $line .= $it;
    }
    return $out . $line;
}

# C type of a value the shared check hands on (a tensor or a param).
sub val_type {
    my ($d, $n) = @_;
    return 'ln_bool' if $n eq 'has_scratch';
    return 'const ln_tensor *' if $d->{_tin}{$n};
    return 'int' if $n =~ /_(len|index)$/ && !grep { $_->{arg_name} eq $n } @{ $d->{params} // [] };
    my ($p) = grep { $_->{arg_name} eq $n } @{ $d->{params} // [] };
    return param_ctype($p);
}

# The generated file an op goes to: its description family's, or its root's.
sub group_of { return $_[0]{_family} // $_[0]{_root}; }

# "#if" lines true unless every root listed was stripped (nothing for one
# root inside that root's own section).
sub strip_guard {
    my @rl = @_;
    return wrap('#if !(', ' && ', ' \\', '      ', [ map { "defined(LN_OP_STRIP_$_)" } @rl ]) . ")\n";
}

my @families;
{
    my %seen;
    for my $d (@descs) {
        push @families, $d->{_root} if !$seen{ $d->{_root} }++;
    }
}
# Who shares a check: the ops of a family that declare the same tensors and
# params as its root (adding checks at most), and across families the roots
# that declare the same tensors, params and checks (the unary ops, the
# binary ops, the reductions).  A check used once is not a function.
my (%extra, %key_of, %users);
for my $root (@families) {
    my $r = $by{$root};
    my $key = $canon->encode([ map { $r->{$_} // [] } qw(tensors_in tensors_out params checks) ]);
    for my $d (grep { $_->{_root} eq $root } @descs) {
        my $x = $d == $r ? [] : extra_checks($r, $d);
        next if !defined $x;
        $extra{ $d->{optype} } = $x;
        $key_of{ $d->{optype} } = $key;
        push @{ $users{$key} }, $d;
    }
}
my (%check_name, %check_file, %check_code, @shared_checks, %shared_inc);
for my $key (sort { $users{$a}[0]{optype} cmp $users{$b}[0]{optype} } keys %users) {
    my @u = @{ $users{$key} };
    next if @u < 2;
    my $r = $by{ $u[0]{_root} };
    my %roots = map { ($_->{_root} => 1) } @u;
    my %grps = map { (group_of($_) => 1) } @u;
    my $local = keys %grps == 1;
    my $name = $local ? "$r->{optype}_check" : "ln_opcheck_$r->{optype}";
    my $vals_t = $local ? "struct $r->{optype}_vals" : "struct ln_opcheck_$r->{optype}_vals";
    # the values the users need after the check: params their run() needs,
    # names in their added checks, has_scratch
    my (%refs, %pp, %need);
    for my $d (@u) {
        %refs = (%refs, %{ $d->{_refs_pre} });
        %pp = (%pp, %{ $d->{_priv_params} });
        $need{$_} = 1 for keys %{ $d->{_priv_params} };
        for my $c (@{ $extra{ $d->{optype} } }) {
            my $cr = c_refs($c->{cond}, @{ $c->{args} // [] });
            for my $n (keys %$cr) {
                $need{$n} = 1 if $d->{_tin}{$n} || grep { $_->{arg_name} eq $n } @{ $d->{params} // [] };
            }
        }
        $need{has_scratch} = 1 if $d->{scratch};
    }
    my $scratch_ok = grep { $_->{scratch} } @u;
    my @vals = map { [ val_type($r, $_), $_ ] } sort keys %need;
    my @st;
    # nothing to hand on: the check is a pre_run
    my $plain = !@vals && !$scratch_ok;
    my ($body, $ns) = pre_run_c($r, \%refs, \%pp, \@st, check => 1, vals => \@vals,
                                scratch_ok => $scratch_ok, plain => $plain);
    my $struct = $plain ? '' : "$vals_t {\n" . join('', map { decl($_->[0], $_->[1]) } @vals) . "};\n";
    my $proto = $plain ? "int $name(ln_op_arg *op_arg)"
                       : "int $name(ln_op_arg *op_arg, $vals_t *v, ln_bool scratch_ok)";
    my $users = join(', ', map { $_->{optype} } @u);
    my $code = join('', @st) . ($st[0] ? "\n" : '');
    if ($local) {
        my @rl = sort keys %roots;
        $code = "/* What the pre_runs of $users have in common: the checks, the outputs. */\n"
            . "$code$struct\nstatic $proto\n{\n$body}\n";
        push @{ $check_code{ group_of($u[0]) } }, [ strip_guard(@rl) . $code . "#endif\n\n", $ns ];
    } else {
        my @rl = sort keys %roots;
        my $guard = strip_guard(@rl);
        push @shared_checks, [ wrap('/* ', ', ', '', ' * ', \@rl) . " */\n$struct$proto;\n",
                               "$guard$code$proto\n{\n$body}\n#endif\n" ];
        $shared_inc{'<string.h>'} = 1 if $ns;
        $shared_inc{'"ln_ophook.h"'} = 1 if $body =~ /\bln_ophook_/;
    }
    $check_name{$_->{optype}} = [ $name, $plain ? undef : $vals_t ] for @u;
}

my @groups;
{
    my %seen;
    for my $d (@descs) { push @groups, group_of($d) if !$seen{ group_of($d) }++; }
}
for my $grp (@groups) {
    my @fam = grep { group_of($_) eq $grp } @descs;
    my @roots;
    { my %seen; @roots = grep { !$seen{$_}++ } map { $_->{_root} } @fam; }
    my (%statics, %static_seen, %parts, $need_string_any, %inc);
    my $check = '';
    # (a static the shared check code above already defines is not repeated:
    # an op with a pre_run of its own beside a shared check, conv2d_res_cpu)
    my $add_statics = sub {
        my $root = shift;
        for my $st (@_) {
            push @{ $statics{$root} }, $st if !$static_seen{"$root\0$st"}++ && index($check, $st) < 0;
        }
    };
    for my $c (@{ $check_code{$grp} // [] }) {
        $check .= $c->[0];
        $need_string_any ||= $c->[1];
    }
    $inc{'"ln_opcheck.h"'} = 1 if grep { $check_name{ $_->{optype} } && $check_name{ $_->{optype} }[0] =~ /^ln_opcheck_/ } @fam;
    my %shared = map { ($_->{optype} => 1) } grep { $check_name{ $_->{optype} } } @fam;
    for my $d (@fam) {
        my $o = $d->{optype};
        my $pp = $d->{_priv_params};
        my $has_priv = %$pp || @{ $d->{priv} // [] };
        my ($pre, $ns);
        my $pre_fn = "${o}_pre_run";
        my @st;
        if ($shared{$o}) {
            my ($rd, $rb) = pre_rest_c($d, $pp, 'v.');
            my ($xd, $xb, $xc) = ('', '', '');
            if (@{ $extra{$o} }) {
                # the checks this op adds, on the shared check's values;
                # a failure takes the outputs out again
                my %cr;
                for my $c (@{ $extra{$o} }) {
                    %cr = (%cr, %{ c_refs($c->{cond}, @{ $c->{args} // [] }) });
                    $xc .= ($xc ? "    if (!ret)\n        ret" : "    ret") . " = ln_opck(op_arg, $c->{cond},\n"
                        . "                      " . c_str($c->{msg})
                        . join('', map { ", $_" } @{ $c->{args} // [] }) . ");\n";
                }
                for my $n (sort keys %cr) {
                    next if !($d->{_tin}{$n} || grep { $_->{arg_name} eq $n } @{ $d->{params} // [] });
                    $xd .= decl(val_type($d, $n), $n);
                    $xb .= "    $n = v.$n;\n";
                }
                $xd .= "    int ret;\n" if $rd !~ /\bret;/;
                $xb .= $xc . "    if (ret) {\n        ln_op_post_run_outputs(op_arg);\n        return ret;\n    }\n";
            }
            my ($cn, $vt) = @{ $check_name{$o} };
            if (!$vt) {
                # the check is all of pre_run, or pre_run begins with it
                $pre = "$xb$rb" eq '' ? undef : "$xd$rd\n    LN_OPCK($cn(op_arg));\n$xb$rb    return 0;\n";
                $pre_fn = $cn if !defined $pre;
            } else {
                my $call = "$cn(op_arg, &v, " . ($d->{scratch} ? 'LN_TRUE' : 'LN_FALSE') . ')';
                $pre = "$xb$rb" eq '' ? "    $vt v;\n\n    return $call;\n"
                     : "    $vt v;\n$xd$rd\n    LN_OPCK($call);\n$xb$rb    return 0;\n";
            }
            $ns = 0;
        } else {
            ($pre, $ns) = pre_run_c($d, $d->{_refs_pre}, $pp, \@st);
        }
        $add_statics->($d->{_root}, @st);
        $need_string_any ||= $ns;

        my $priv = '';
        if ($has_priv) {
            $priv = "/* What ${o}'s run() needs, computed once by pre_run. */\nstruct ${o}_priv {\n";
            for my $p (@{ $d->{params} // [] }) {
                if ($pp->{ $p->{arg_name} }) {
                    $priv .= decl(param_ctype($p), $p->{arg_name});
                    $priv .= "    int $p->{arg_name}_len;\n" if $p->{type} =~ /^array/;
                }
                $priv .= "    int $p->{arg_name}_index;\n" if $pp->{"$p->{arg_name}_index"};
            }
            $priv .= decl($_->{ctype}, $_->{name}) for @{ $d->{priv} // [] };
            $priv .= "};\n";
            if (defined $d->{aot}) {
                $priv .= "\n/* The private struct field by field, for ln-aot (ln_opregistry_aot). */\n"
                    . "const ln_opregistry_aot_field ln_opimpl_${o}_aot_priv[] = {\n";
                for my $p (@{ $d->{params} // [] }) {
                    my $a = $p->{arg_name};
                    if ($pp->{$a}) {
                        $priv .= "    {\"$a\", " . c_str(param_ctype($p)) . ", offsetof(struct ${o}_priv, $a)},\n";
                        $priv .= "    {\"${a}_len\", \"int\", offsetof(struct ${o}_priv, ${a}_len)},\n"
                            if $p->{type} =~ /^array/;
                    }
                    $priv .= "    {\"${a}_index\", \"int\", offsetof(struct ${o}_priv, ${a}_index)},\n"
                        if $pp->{"${a}_index"};
                }
                $priv .= "    {\"$_->{name}\", " . c_str($_->{ctype}) . ", offsetof(struct ${o}_priv, $_->{name})},\n"
                    for @{ $d->{priv} // [] };
                $priv .= "    {NULL, NULL, 0}\n};\n";
                $d->{_aot_priv} = 1;
            }
        }
        my $m = $d->{mem} // { kind => 'own' };
        my @run_calls = @{ $d->{_run_calls} };
        my $uses_hooks = grep { ref $_->{shape} && $_->{shape}{hook} } @{ $d->{tensors_out} // [] };
        $uses_hooks ||= @{ $d->{priv} // [] } || $m->{offset};
        $uses_hooks ||= grep { $_->{call} =~ /^ln_ophook_/ } @run_calls;
        $uses_hooks ||= grep { /^ln_ophook_/ } keys %{ $d->{_refs_pre} }, keys %{ $d->{_refs_run} };
        $inc{'"ln_rt.h"'} = 1 if grep { $_->{call} =~ /^ln_rt_/ } @run_calls;
        $inc{'"ln_ophook.h"'} = 1 if $uses_hooks;
        # post_run: the generic one, unless inputs are marked as graph I/O
        my $own_post = grep { $_->{io} } @{ $d->{tensors_in} // [] };
        my $post = $own_post ? post_run_c($d, $has_priv) : '';
        my $post_fn = $own_post ? "${o}_post_run"
                    : (@{ $d->{tensors_out} // [] } || $has_priv || $d->{scratch}) ? 'ln_op_post_run_outputs' : '';
        $pre =~ s/\b${o}_post_run\(op_arg\)/$post_fn(op_arg)/g if defined $pre;
        my $has_run = $d->{run} && @{ $d->{run} } ? 1 : 0;
        my $has_srun = $d->{static_run} && @{ $d->{static_run} } ? 1 : 0;
        my @fields = (".op_arg = &(ln_op_arg){.optype = \"$o\", .arch = \"$d->{arch}\"}",
                      ".pre_run = $pre_fn");
        push @fields, ".static_run = ${o}_static_run" if $has_srun;
        push @fields, ".run = ${o}_run" if $has_run;
        push @fields, ".post_run = $post_fn" if $post_fn;
        push @fields, ".calc_offset = $m->{offset}" if $m->{offset};
        push @fields, ".mem_kind = $KIND{ $m->{kind} }";
        push @fields, ".mem_out = " . c_str($m->{out}) if defined $m->{out};
        push @fields, ".mem_in = " . c_str($m->{in}) if defined $m->{in};
        my $doc = $d->{doc} // ($d->{extends} ? "$d->{extends} for arch $d->{arch}" : $o);
        $doc =~ s/\n/\n * /g;
        $parts{$o} = { d => $d, doc => $doc, priv => $priv, pre => $pre, pre_fn => $pre_fn,
                       post => $post, fields => \@fields, has_run => $has_run, has_srun => $has_srun };
    }
    # Ops whose private struct and pre_run are the same but for their name
    # (argmax_cpu and argmin_cpu, the reductions) share one of each; run()
    # stays per op (its kernel).  Shared by several roots, they go before the
    # roots' sections, compiled unless every user is stripped.
    my (%share_of, %users_of, @top);
    for my $d (grep { $_->{arch} ne 'none' } @fam) {
        my $o = $d->{optype};
        my $p = $parts{$o};
        next if !defined $p->{pre} || $p->{priv} eq '';
        (my $key = "$p->{priv}\0$p->{pre}") =~ s/\Q$o\E_(priv|pre_run|aot_priv)\b/\@$1\@/g;
        $key =~ s/What \S+ run\(\) needs/What run() needs/;
        push @{ $users_of{$key} }, $o;
        $share_of{$o} = $users_of{$key}[0];
    }
    for my $key (sort { $users_of{$a}[0] cmp $users_of{$b}[0] } keys %users_of) {
        my @u = @{ $users_of{$key} };
        next if @u < 2;
        my $first = $u[0];
        my %rl = map { ($parts{$_}{d}{_root} => 1) } @u;
        # (not when the pre_run names a root's statics: they stay in its section)
        next if keys %rl > 1 && grep { @{ $statics{$_} // [] } } keys %rl;
        for my $o (@u[1 .. $#u]) {
            my $p = $parts{$o};
            $p->{shared_pre} = $first;
            $p->{fields}[1] = ".pre_run = ${first}_pre_run";
            $p->{d}{_aot_priv_sym} = "ln_opimpl_${first}_aot_priv" if $p->{d}{_aot_priv};
            $p->{d}{_aot_priv} = 0;
            $p->{d}{_aot_priv_root} = $parts{$first}{d}{_root};
        }
        if (keys %rl > 1) {
            # before the roots' sections, guarded by all of them
            my $p = $parts{$first};
            (my $priv = $p->{priv}) =~ s/What \S+ run\(\) needs/What the run() of @{[ join(', ', @u) ]} needs/;
            push @top, strip_guard(sort keys %rl) . "$priv\nstatic int ${first}_pre_run(ln_op_arg *op_arg)\n{\n"
                . "$p->{pre}}\n#endif\n\n";
            $p->{top} = 1;
            $p->{d}{_aot_priv_guard} = [ sort keys %rl ];
        }
    }
    my %bodies;
    for my $d (@fam) {
        my $o = $d->{optype};
        my $p = $parts{$o};
        my $ps = $p->{shared_pre} // $o;
        my $run = $p->{has_run} ? run_c($d, 'run') : '';
        my $srun = $p->{has_srun} ? run_c($d, 'static_run') : '';
        s/\bstruct \Q$o\E_priv\b/struct ${ps}_priv/g for $run, $srun;
        my $own = !$p->{shared_pre} && !$p->{top};
        push @{ $bodies{ $d->{_root} } }, m4_expand("$tdir/op_impl.c.m4", {
            GEN_OPTYPE => $o, GEN_ARCH => $d->{arch}, GEN_DOC => $p->{doc},
            GEN_PRIV => $own && $p->{priv} ? "\n$p->{priv}\n" : '',
            GEN_PRE_RUN => $p->{pre} // '', GEN_HAS_PRE_RUN => $own && defined $p->{pre} ? 1 : 0,
            GEN_POST_RUN => $p->{post},
            GEN_STATIC_RUN => $srun, GEN_RUN => $run,
            GEN_AOT => defined $d->{aot} ? $d->{aot} : '',
            GEN_HAS_POST_RUN => $p->{post} ne '' ? 1 : 0,
            GEN_HAS_AOT => defined $d->{aot} ? 1 : 0,
            GEN_HAS_RUN => $p->{has_run}, GEN_HAS_STATIC_RUN => $p->{has_srun},
            GEN_FIELDS => wrap('    ', ', ', '', '    ', $p->{fields}),
        });
    }
    $inc{'<string.h>'} = 1 if $need_string_any;
    my @inc = ((grep { $inc{$_} } '<string.h>'), '"ln_op.h"',
               (grep { $inc{$_} } '"ln_rt.h"', '"ln_ophook.h"', '"ln_opcheck.h"'), '"ln_opregistry.h"');
    my %files_of = map { ($_->{_file} => 1) } @fam;
    my $sections = join("\n", map {
        my $st = join('', @{ $statics{$_} // [] });
        "#ifndef LN_OP_STRIP_$_\n\n" . ($st ? "$st\n" : '') . join("\n", @{ $bodies{$_} })
            . "\n#endif /* LN_OP_STRIP_$_ */\n" } @roots);
    $files{"ln_opimpl_$grp.c"} = m4_expand("$tdir/op.c.m4", {
        GEN_DESC => join(', ', sort keys %files_of), GEN_ROOT => $grp,
        GEN_OPS => join(', ', map { $_->{optype} } @fam),
        GEN_INCLUDES => join('', map { "#include $_\n" } @inc),
        GEN_STATICS => $check . join('', @top),
        GEN_BODIES => $sections,
    });
}

my @sinc = ((grep { $shared_inc{$_} } '<string.h>'), '"ln_op.h"', (grep { $shared_inc{$_} } '"ln_ophook.h"'), '"ln_opcheck.h"');
$files{'ln_opcheck.h'} = m4_expand("$tdir/opcheck.h.m4", {
    GEN_DECLS => join("\n", map { $_->[0] } @shared_checks) });
$files{'ln_opcheck.c'} = m4_expand("$tdir/opcheck.c.m4", {
    GEN_INCLUDES => join('', map { "#include $_\n" } @sinc),
    GEN_CHECKS => join("\n", map { $_->[1] } @shared_checks) });

#
# The registry, its header and the strip switches.
#
my @roots = sort grep { $by{$_}{optype} eq $by{$_}{_root} } map { $_->{optype} } @descs;
my %archs;
push @{ $archs{ $_->{arch} } }, $_ for @descs;
$archs{$_} //= [] for qw(none cpu);
# one row per described op; LN_OPREG_PROTO is NULL when the build was
# stripped of the op (ln_opregistry.h), so no row needs an #ifdef
my $reg = "const ln_opregistry_row ln_opregistry[] = {\n";
for my $d (sort { $a->{optype} cmp $b->{optype} } @descs) {
    $reg .= "    {" . c_str($d->{optype}) . ', ' . c_str($d->{arch})
        . ", LN_OPREG_PROTO($d->{_root}, $d->{optype})},\n";
}
$reg .= "    {NULL, NULL, NULL}\n};\n";

# the name lists and attr tables, each written once however many rows use it
my $onnx = '';
my (@onnx_rows, %lists, %attr_tabs);
my $list_c = sub {
    my @l = @_;
    my $k = join("\0", @l);
    return $lists{$k} //= do {
        my $n = 'onnx_names_' . scalar(keys %lists);
        $onnx .= "static const char *const ${n}[] = {" . join('', map { c_str($_) . ', ' } @l) . "NULL};\n";
        $n;
    };
};
for my $d (@descs) {
    for my $i (0 .. $#{ $d->{onnx} // [] }) {
        my $e = $d->{onnx}[$i];
        my ($in, $out) = map { $list_c->(@{ $e->{$_} // [] }) } qw(inputs outputs);
        my $rows = '';
        for my $a (@{ $e->{attrs} // [] }) {
            my $def = exists $a->{default}
                ? c_str(JSON::PP->new->canonical->allow_nonref->encode($a->{default})) : 'NULL';
            $rows .= "    {" . c_str($a->{attr}) . ', ' . c_str($a->{param}) . ", $def},\n";
        }
        for my $c (@{ $e->{consts} // [] }) {
            my $v = c_str(JSON::PP->new->canonical->allow_nonref->encode($c->{value}));
            $rows .= "    {\"\", " . c_str($c->{param}) . ", $v},\n";
        }
        my $at = $attr_tabs{$rows} //= do {
            my $n = 'onnx_attrs_' . scalar(keys %attr_tabs);
            $onnx .= "static const ln_opregistry_onnx_attr ${n}[] = {\n$rows    {NULL, NULL, NULL}\n};\n";
            $n;
        };
        push @onnx_rows, [ $e->{op_type}, $e->{since}, $d->{optype},
            "    {" . c_str($e->{op_type}) . ", $e->{since}, " . ($e->{until} // 0) . ', '
            . c_str($d->{optype}) . ", $in, $out, $at},\n" ];
    }
}
$onnx .= "\nconst ln_opregistry_onnx_entry ln_opregistry_onnx[] = {\n";
$onnx .= join('', map { $_->[3] } sort { $a->[0] cmp $b->[0] || $a->[1] <=> $b->[1] } @onnx_rows);
$onnx .= "    {NULL, 0, 0, NULL, NULL, NULL, NULL}\n};\n";

my $aot = "const ln_opregistry_aot_entry ln_opregistry_aot[] = {\n";
for my $d (grep { defined $_->{aot} } @descs) {
    $aot .= "    {" . c_str($d->{optype}) . ', ' . c_str($d->{aot}) . ', '
        . ($d->{_aot_priv} ? "LN_OPREG_IF_KEPT($d->{_root}, ln_opimpl_$d->{optype}_aot_priv)"
           : $d->{_aot_priv_sym} ? "LN_OPREG_IF_KEPT($d->{_root}, $d->{_aot_priv_sym})" : 'NULL')
        . "},\n";
}
$aot .= "    {NULL, NULL, NULL}\n};\n";
my $aot_externs = join('', map { "extern const ln_opregistry_aot_field ln_opimpl_$_->{optype}_aot_priv[];\n" }
                       grep { $_->{_aot_priv} } @descs);

my $desc_list = join(' ', sort map { my $f = $_->{_file}; $f =~ s{.*/}{}; $f }
                     values %{ { map { $_->{_file} => $_ } @descs } });
my %rdefs = (
    GEN_DESC_DIR => $opt{descs}, GEN_DESC_FILES => $desc_list,
    GEN_PROTOS => join('', map { "extern ln_op ln_opimpl_$_->{optype};\n" } @descs),
    GEN_REGISTRY => $reg, GEN_ONNX => $onnx, GEN_AOT => $aot, GEN_AOT_EXTERNS => $aot_externs,
    GEN_ROOTS => join(' ', @roots),
    GEN_CORE => join(' ', grep { $by{$_}{core} } @roots),
);
$files{'ln_opregistry.h'} = m4_expand("$tdir/opregistry.h.m4", \%rdefs);
$files{'ln_opregistry.c'} = m4_expand("$tdir/opregistry.c.m4", \%rdefs);
$files{'ln_ops.mk'} = m4_expand("$tdir/ops.mk.m4", \%rdefs);

#
# The kernels: each one a description calls is declared in the runtime's
# header (a missing prototype stops the generator), and the tables people
# read are written from the descriptions: docs/onnx-ops.md (what ln-onnx
# --ops prints) and runtime/KERNELS.md (which op calls which kernel where).
#
my ($rt_decl, %rt_file) = ('');
for my $h (split /:/, $opt{'rt-headers'}) {
    open my $fh, '<', $h or fail($h, "cannot read: $!");
    local $/;
    $rt_decl .= <$fh>;
}
{
    my @dirs = ($opt{'rt-kernels'});
    while (my $dir = shift @dirs) {
        opendir my $dh, $dir or next;
        for my $f (sort grep { !/^\./ } readdir $dh) {
            my $p = "$dir/$f";
            if (-d $p) { push @dirs, $p; next; }
            next if $f !~ /\.c$/;
            open my $fh, '<', $p or next;
            local $/;
            my $text = <$fh>;
            (my $rel = $p) =~ s{^\Q$opt{'rt-kernels'}\E/}{};
            $rt_file{$1} //= $rel while $text =~ /^[A-Za-z_][\w \t*]*?\b(ln_rt_\w+)\s*\([^;{]*\)\s*\{/mg;
            # kernels a macro defines: M(ln_rt_x, ...), or
            # #define M(NAME, ...) ... ln_rt_##NAME##_f32(
            $rt_file{$1} //= $rel while $text =~ /^[A-Z][A-Z0-9_]*\((ln_rt_\w+)/mg;
            # #define M(T, U, S) ... ln_rt_add_##S(  with M(int8_t, uint32_t, s8)
            my %mac;
            while ($text =~ /^#define\s+(\w+)\(([\w\s,]*)\)((?:[^\n]*\\\n)*[^\n]*)/mg) {
                my ($m, $body) = ($1, $3);
                my @p = map { s/^\s+|\s+$//gr } split /,/, $2;
                while ($body =~ /\b(ln_rt_\w*)##(\w+)(?:##(\w+))?\s*[(,]/g) {
                    my ($pre, $arg, $post) = ($1, $2, $3);
                    my ($k) = grep { $p[$_] eq $arg } 0 .. $#p;
                    push @{ $mac{$m} }, [ $pre, $k, $post ] if defined $k;
                }
            }
            for my $m (keys %mac) {
                while ($text =~ /^$m\(((?:[^()\n]|\([^()\n]*\))*)\)/mg) {
                    my @a = split_args($1);
                    for my $x (@{ $mac{$m} }) {
                        my ($pre, $k, $post) = @$x;
                        $rt_file{ $pre . $a[$k] . ($post // '') } //= $rel if defined $a[$k];
                    }
                }
            }
        }
        closedir $dh;
    }
}
my $kdoc = "<!-- GENERATED by gen/opgen.pl from $opt{descs} -- do not edit; run `make gen`. -->\n"
    . "# Kernels by op\n\n"
    . "Every arch op of the descriptions and the `libln_rt` kernel its `kernel` call\n"
    . "names (declared in `include/ln_rt.h`, defined in the file given, under\n"
    . "`kernels/`). How the kernels are built and made fast: [README.md](README.md).\n\n"
    . "| op | kernel | file | what it computes |\n| --- | --- | --- | --- |\n";
for my $d (sort { $a->{optype} cmp $b->{optype} } grep { $_->{_kernels} || ($_->{run} && $_->{arch} ne 'none') } @descs) {
    my @k = grep { /^ln_rt_/ } map { $_->{call} } @{ $d->{run} // [] };
    next if !@k;
    my %seen;
    @k = grep { !$seen{$_}++ } @k;
    for my $k (@k) {
        fail("$d->{_where}: kernel", "'$k' is not declared in $opt{'rt-headers'}")
            if $rt_decl !~ /\b\Q$k\E\s*\(/;
    }
    my $doc = $by{ $d->{_root} }{doc} // '';
    $doc =~ s/\|/\\|/g;
    $doc =~ s/\s*\n\s*/ /g;
    $kdoc .= "| $d->{optype} | " . join('<br>', map { "`$_`" } @k) . ' | '
        . join('<br>', map { $rt_file{$_} ? "`$rt_file{$_}`" : '(not defined)' } @k) . " | $doc |\n";
}
my $odoc = "<!-- GENERATED by gen/opgen.pl from $opt{descs} -- do not edit; run `make gen`. -->\n"
    . "# ONNX operators LightNet imports\n\n"
    . "One row per mapping of the descriptions' `onnx` fields (`ln-onnx --ops` prints\n"
    . "the same for the build at hand, stripped ops marked, and the QOperator nodes\n"
    . "the importer expands into QDQ nodes). A row split at an opset is where ONNX changed\n"
    . "the op, for example an attribute that became a `\@param` input. How the\n"
    . "importer works: [onnx.md](onnx.md).\n\n"
    . "| ONNX op_type | opsets | LightNet optype | inputs | attributes |\n| --- | --- | --- | --- | --- |\n"
    . "| Constant | 1- | create | (the importer's own) | |\n";
for my $row (sort { $a->[0] cmp $b->[0] || $a->[1] <=> $b->[1] } @onnx_rows) {
    my ($d) = grep { $_->{optype} eq $row->[2] } @descs;
    my ($e) = grep { $_->{op_type} eq $row->[0] && $_->{since} == $row->[1] } @{ $d->{onnx} };
    my $ins = join(', ', map { $_ eq '' ? '(ignored)' : $_ } @{ $e->{inputs} // [] });
    my $attrs = join(', ', map { $_->{attr} } @{ $e->{attrs} // [] });
    $odoc .= "| $row->[0] | $row->[1]-" . ($e->{until} // '') . " | $row->[2] | $ins | $attrs |\n";
}

write_dir($opt{out}, \%files);
write_file($opt{'onnx-doc'}, $odoc) if $opt{'onnx-doc'} ne '';
write_file($opt{'kernel-doc'}, $kdoc) if $opt{'kernel-doc'} ne '';
