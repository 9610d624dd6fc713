#!/usr/bin/perl
# optgen.pl -- optimizer descriptions (gen/opt_descs/<arch>.json) to C.
#
# Writes src/arch/auto/ln_expander_<arch>.c (`ln_expander_funcs_<arch>[]`
# for the ops with rules, `ln_expand_defaults_<arch>[]` with one row per op
# that only takes the default X -> X_<arch>)
# and src/arch/auto/ln_combiner_<arch>.c (`ln_combiner_funcs_<arch>[]`, and
# `ln_combiner_early_funcs_<arch>[]` for the rules of stage "early"),
# both NULL-terminated arrays of the ln_arch.h function types.  Rules are
# checked against the operator descriptions (gen/op_descs): every optype,
# tensor and param a rule names must be described.
#
# Usage (from the repository root): perl gen/optgen.pl
#   [--descs gen/opt_descs] [--op-descs gen/op_descs] [--out src/arch/auto]
#   [--hooks src/op] [--templates templates]
# The format is documented in docs/op-descriptions.md.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use Getopt::Long;
use JSON::PP ();
use LnGen qw(fail is_num is_int is_str is_bool check_keys load_op_descs json_read
             c_str m4_expand write_dir dtype_enum cmp_enum);

$LnGen::PROG = 'optgen';
my %opt = (descs => 'gen/opt_descs', 'op-descs' => 'gen/op_descs', out => 'src/arch/auto',
           templates => 'templates');
GetOptions(\%opt, 'descs=s', 'op-descs=s', 'out=s', 'templates=s')
    or die "usage: perl gen/optgen.pl [--descs DIR] [--op-descs DIR] [--out DIR] [--templates DIR]\n";

my @ops = load_op_descs($opt{'op-descs'});
my %op = map { $_->{optype} => $_ } @ops;

opendir my $dh, $opt{descs} or fail($opt{descs}, "cannot open: $!");
my @files = sort grep { /\.json$/ } readdir $dh;
closedir $dh;

# Per generated file: helpers used (emitted once, in a fixed order).
my %HELPER = (
    new_op => <<'EOF',
/* A new op of optype (a prototype of this build: the generator checked it
 * is described and the rule is compiled out when it is stripped). */
static ln_op *new_op(const char *optype, const char *name, ln_list *tensors_in,
                     ln_list *tensors_out, ln_list *params, ln_hash *table)
{
    const ln_op *proto = ln_arch_op_proto(optype);

    assert(proto);
    return ln_op_create_from_proto(proto, name, tensors_in, tensors_out, params, table);
}
EOF
    tensor_of => <<'EOF',
static const ln_tensor *tensor_of(const ln_op *op, const char *name)
{
    ln_tensor_entry *te = name ? ln_tensor_table_find(op->op_arg->tensor_table, name) : NULL;

    return te ? te->tensor : NULL;
}
EOF
    producer_is => <<'EOF',
static ln_bool producer_is(const ln_context *ctx, const char *name, const char *optype)
{
    const ln_op *p = name ? ln_dfg_producer(ctx->dfg, name) : NULL;

    return p && ln_streq(p->op_arg->optype, optype);
}
EOF
    copy_param => <<'EOF',
/* params + a copy of pe renamed arg_name, replacing a param of that name
 * (nothing when pe is NULL). */
static ln_list *copy_param(ln_list *params, const char *arg_name, const ln_param_entry *pe)
{
    ln_param_entry *copy;

    if (!pe)
        return params;
    params = ln_param_list_remove(params, arg_name);
    copy = ln_param_entry_copy(pe);
    ln_free(copy->arg_name);
    copy->arg_name = ln_strdup(arg_name);
    return ln_param_list_append_entry(params, copy);
}
EOF
    same_shape => <<'EOF',
/* Both tensors known, of one shape with every dimension known (> 0). */
static int same_shape(const ln_tensor *a, const ln_tensor *b)
{
    int i;

    if (!a || !b || a->ndim != b->ndim)
        return 0;
    for (i = 0; i < a->ndim; i++)
        if (a->dims[i] <= 0 || a->dims[i] != b->dims[i])
            return 0;
    return 1;
}
EOF
    copy_param_or => <<'EOF',
/* copy_param, or arg_name = dflt (the source param's default) when the
 * source op does not have the param. */
static ln_list *copy_param_or(ln_list *params, const char *arg_name, const ln_param_entry *pe,
                              double dflt)
{
    if (pe)
        return copy_param(params, arg_name, pe);
    params = ln_param_list_remove(params, arg_name);
    return ln_param_list_append_number(params, arg_name, dflt);
}
EOF
    copy_params => <<'EOF',
static ln_list *copy_params(ln_list *params, ln_list *from)
{
    LN_LIST_FOREACH(ln_param_entry, pe, from)
        params = ln_param_list_append_entry(params, ln_param_entry_copy(pe));
    return params;
}
EOF
);
my @HELPER_ORDER = qw(new_op tensor_of producer_is same_shape copy_param copy_param_or copy_params);

# A rule's context: the pattern optypes (index -> optype) and where it is.
sub ref_parse {
    my ($where, $pat, $ref) = @_;
    fail($where, 'must be a string "<op index>.<arg_name>" or "<arg_name>"') if !is_str($ref);
    my ($i, $arg) = $ref =~ /^(\d+)\.(\w+)$/ ? ($1, $2) : (0, $ref);
    fail($where, "op index $i is outside the pattern (" . scalar(@$pat) . ' ops)') if $i >= @$pat;
    return ($i, $arg);
}

sub tensor_name_c {
    my ($where, $pat, $ref) = @_;
    my ($i, $arg) = ref_parse($where, $pat, $ref);
    my $d = $op{ $pat->[$i] };
    my $list = $d->{_tin}{$arg} ? 'tensors_in' : $d->{_tout}{$arg} ? 'tensors_out'
             : fail($where, "$pat->[$i] has no tensor '$arg'");
    return "ln_tensor_list_find_name(op$i->op_arg->$list, \"$arg\")";
}

sub param_c {
    my ($where, $pat, $ref) = @_;
    my ($i, $arg) = ref_parse($where, $pat, $ref);
    fail($where, "$pat->[$i] has no param '$arg'") if !$op{ $pat->[$i] }{_par}{$arg};
    return ("ln_op_param(op$i->op_arg, \"$arg\")", $op{ $pat->[$i] }{_par}{$arg});
}

# The C lines that set param a to the literal v (a later entry replaces an
# earlier one: remove, then append); arr names a static array for an array v.
sub param_value_c {
    my ($where, $a, $v, $arr) = @_;
    my @l = ("params = ln_param_list_remove(params, \"$a\");");
    if (is_bool($v)) {
        push @l, "params = ln_param_list_append_bool(params, \"$a\", " . ($v ? 'LN_TRUE' : 'LN_FALSE') . ');';
    } elsif (is_num($v)) {
        push @l, "params = ln_param_list_append_number(params, \"$a\", $v);";
    } elsif (is_str($v)) {
        push @l, "params = ln_param_list_append_string(params, \"$a\", " . c_str($v) . ');';
    } elsif (ref $v eq 'ARRAY' && @$v && !grep { !is_num($_) } @$v) {
        push @l, "{\n    static const double ${arr}[] = {" . join(', ', @$v) . "};\n"
            . "    params = ln_param_list_append_array_number(params, \"$a\", " . scalar(@$v) . ", $arr);\n}";
    } elsif (ref $v eq 'ARRAY' && @$v && !grep { !is_str($_) } @$v) {
        push @l, "{\n    static const char *const ${arr}[] = {" . join(', ', map { c_str($_) } @$v) . "};\n"
            . "    params = ln_param_list_append_array_string(params, \"$a\", " . scalar(@$v) . ", $arr);\n}";
    } elsif (ref $v eq 'ARRAY' && @$v && !grep { !is_bool($_) } @$v) {
        push @l, "{\n    static const ln_bool ${arr}[] = {" . join(', ', map { $_ ? 'LN_TRUE' : 'LN_FALSE' } @$v) . "};\n"
            . "    params = ln_param_list_append_array_bool(params, \"$a\", " . scalar(@$v) . ", $arr);\n}";
    } else {
        fail($where, 'must be a number, a string, a bool or a non-empty array of numbers, strings or bools');
    }
    return join("\n", @l);
}

sub default_satisfies {
    my ($d, $k, $v) = @_;
    return 0 if ref $d;
    if (is_num($v)) {
        return 0 if !is_num($d);
        return { eq => $d == $v, ne => $d != $v, gt => $d > $v, ge => $d >= $v,
                 lt => $d < $v, le => $d <= $v }->{$k};
    }
    my $same = is_bool($v) ? (is_bool($d) && !!$d == !!$v) : (is_str($d) && $d eq $v);
    return $k eq 'eq' ? $same : !$same;
}

my %COP = (LN_CMP_EQ => "==", LN_CMP_NE => "!=", LN_CMP_GT => ">", LN_CMP_GE => ">=", LN_CMP_LT => "<", LN_CMP_LE => "<=");

# A tensor dimension ["<op>.<tensor>", d] (d >= 0, counted from the outermost):
# the C conditions that it exists (the tensor is known and has more than d
# dims) and the C expression of its size.
sub tensor_dim_c {
    my ($where, $pat, $v, $used) = @_;
    fail($where, 'must be an array ["<op index>.<tensor>", <dim>]')
        if ref $v ne 'ARRAY' || @$v != 2 || !is_str($v->[0]);
    fail("$where\[1]", 'must be an integer >= 0 (a dimension index)') if !is_int($v->[1]) || $v->[1] < 0;
    my ($i) = ref_parse("$where\[0]", $pat, $v->[0]);
    my $name = tensor_name_c("$where\[0]", $pat, $v->[0]);
    $used->{tensor_of} = 1;
    return (["tensor_of(op$i, $name)", "tensor_of(op$i, $name)->ndim > $v->[1]"],
            "tensor_of(op$i, $name)->dims[$v->[1]]");
}

sub cond_c {
    my ($where, $pat, $c, $used) = @_;
    fail($where, 'must be an object') if ref $c ne 'HASH';
    if (exists $c->{param}) {
        check_keys($where, $c, { param => 'str', eq => 'any', ne => 'any', gt => 'num',
                                 ge => 'num', lt => 'num', le => 'num',
                                 map { ("${_}_dim" => 'array') } keys %LnGen::CMP });
        my ($pe, $p) = param_c("$where.param", $pat, $c->{param});
        my @out;
        for my $k (sort grep { $_ ne 'param' } keys %$c) {
            my $v = $c->{$k};
            if ($k =~ /^(\w\w)_dim$/) {
                # a number param against a tensor dimension
                my $op = $COP{ $LnGen::CMP{$1} };
                fail("$where.param", "'$c->{param}' is not a number param: $k compares numbers")
                    if $p->{type} ne 'number';
                my ($exists, $dim) = tensor_dim_c("$where.$k", $pat, $v, $used);
                push @out, @$exists;
                if (exists $p->{default} && is_num($p->{default})) {
                    push @out, "($pe ? $pe->value_double : $p->{default}) $op $dim";
                } else {
                    push @out, $pe, "$pe->value_double $op $dim";
                }
                next;
            }
            my $cmp;
            my $def_ok = exists $p->{default} && default_satisfies($p->{default}, $k, $v);
            if (is_num($v)) {
                $cmp = "$pe->value_double $COP{$LnGen::CMP{$k}} $v";
            } elsif (is_str($v) && $k =~ /^(eq|ne)$/) {
                $cmp = ($k eq 'ne' ? '!' : '') . "ln_streq($pe->value_string, " . c_str($v) . ')';
            } elsif (is_bool($v) && $k =~ /^(eq|ne)$/) {
                $cmp = "$pe->value_bool " . ($k eq 'eq' ? '==' : '!=') . ($v ? ' LN_TRUE' : ' LN_FALSE');
            } else {
                fail("$where.$k", 'must be a number (or, for eq/ne, a string or a bool)');
            }
            # an absent param has its described default
            if ($def_ok) {
                push @out, "(!$pe ||\n         $cmp)";
            } else {
                push @out, $pe, $cmp;
            }
        }
        fail($where, 'has no comparison') if !@out;
        return @out;
    }
    if (exists $c->{tensor}) {
        check_keys($where, $c, { tensor => 'str', dtype => 'str', ndim => 'int|object',
                                 consumers => 'int|object', producer => 'str', dim => 'int',
                                 same => 'str', distinct => 'str', same_shape => 'str', present => 'bool',
                                 map { ($_ => 'num') } keys %LnGen::CMP });
        my ($i) = ref_parse("$where.tensor", $pat, $c->{tensor});
        my $name = tensor_name_c("$where.tensor", $pat, $c->{tensor});
        my @out;
        if (exists $c->{present}) {
            # an optional tensor the op lists, or not
            push @out, ($c->{present} ? '' : '!') . "($name)";
        }
        if (exists $c->{same}) {
            # the same tensor as another op's (x in x * f(x))
            my $other = tensor_name_c("$where.same", $pat, $c->{same});
            push @out, "ln_streq($name,\n                 $other)";
        }
        if (exists $c->{distinct}) {
            # not the same tensor as another op's (the other input of x + x)
            my $other = tensor_name_c("$where.distinct", $pat, $c->{distinct});
            push @out, "!ln_streq($name,\n                  $other)";
        }
        if (exists $c->{same_shape}) {
            # of one shape, every dimension known (no broadcasting between them)
            my ($j) = ref_parse("$where.same_shape", $pat, $c->{same_shape});
            my $other = tensor_name_c("$where.same_shape", $pat, $c->{same_shape});
            $used->{tensor_of} = 1;
            $used->{same_shape} = 1;
            push @out, "same_shape(tensor_of(op$i, $name),\n                   tensor_of(op$j, $other))";
        }
        my @cmps = sort grep { $LnGen::CMP{$_} } keys %$c;
        fail($where, "$cmps[0] compares a dimension: needs \"dim\"") if @cmps && !exists $c->{dim};
        if (exists $c->{dim}) {
            fail("$where.dim", 'needs a comparison (eq ne gt ge lt le) beside it') if !@cmps;
            fail("$where.dim", 'must be an integer >= 0 (a dimension index)') if $c->{dim} < 0;
            my ($exists, $dim) = tensor_dim_c("$where.dim", $pat, [ $c->{tensor}, $c->{dim} ], $used);
            push @out, @$exists;
            push @out, "$dim $COP{ $LnGen::CMP{$_} } $c->{$_}" for @cmps;
        }
        if (exists $c->{dtype}) {
            my $e = dtype_enum($c->{dtype}) // fail("$where.dtype", "unknown dtype '$c->{dtype}'");
            $used->{tensor_of} = 1;
            push @out, "tensor_of(op$i, $name)", "tensor_of(op$i, $name)->dtype == $e";
        }
        if (exists $c->{ndim}) {
            $used->{tensor_of} = 1;
            push @out, "tensor_of(op$i, $name)";
            push @out, "tensor_of(op$i, $name)->ndim $COP{$_->[0]} $_->[1]"
                for cmp_enum("$where.ndim", $c->{ndim});
        }
        if (exists $c->{consumers}) {
            push @out, "ln_dfg_num_readers(ctx->dfg,\n                           $name) $COP{$_->[0]} $_->[1]"
                for cmp_enum("$where.consumers", $c->{consumers});
        }
        if (exists $c->{producer}) {
            fail("$where.producer", "no description of optype '$c->{producer}'") if !$op{ $c->{producer} };
            $used->{producer_is} = 1;
            push @out, "producer_is(ctx, $name, " . c_str($c->{producer}) . ')';
        }
        fail($where, 'needs dtype, ndim, dim, consumers, producer, same, distinct, same_shape or present') if !@out;
        return @out;
    }
    if (exists $c->{not_target}) {
        # a rule for the other targets only (a fused form the target's
        # runtime leaves out)
        check_keys($where, $c, { not_target => 'str' });
        fail("$where.not_target", "'$c->{not_target}' is not a target (cpu, cortex-m4)")
            if $c->{not_target} !~ /^(cpu|cortex-m4)$/;
        return "!(ctx->target &&\n          ln_streq(ctx->target, " . c_str($c->{not_target}) . '))';
    }
    fail($where, 'needs "param", "tensor" or "not_target"');
}

# The C block that builds the replacement ops into `ops`.
sub replace_c {
    my ($where, $pat, $reps, $used) = @_;
    fail($where, 'must be a non-empty array of ops') if ref $reps ne 'ARRAY' || !@$reps;
    my $c = '';
    $used->{new_op} = 1;
    for my $k (0 .. $#$reps) {
        my $r = $reps->[$k];
        my $rw = "$where\[$k]";
        check_keys($rw, $r, { optype => 'str', name => 'str', tensors_in => 'any',
                              tensors_out => 'any', params => 'array' }, 'optype');
        my $t = $op{ $r->{optype} } // fail("$rw.optype", "no description of optype '$r->{optype}'");
        my @lines;
        my @news;
        for my $dir (qw(tensors_in tensors_out)) {
            my $var = $dir eq 'tensors_in' ? 'tin' : 'tout';
            my $set = $dir eq 'tensors_in' ? $t->{_tin} : $t->{_tout};
            if (!exists $r->{$dir}) {
                push @lines, "$var = ln_tensor_list_copy(op0->op_arg->$dir);";
                next;
            }
            fail("$rw.$dir", 'must be an array of {arg_name, tensor | new}') if ref $r->{$dir} ne 'ARRAY';
            my $first = 1;
            for my $j (0 .. $#{ $r->{$dir} }) {
                my $e = $r->{$dir}[$j];
                my $ew = "$rw.$dir\[$j]";
                check_keys($ew, $e, { arg_name => 'str', tensor => 'str', new => 'str' }, 'arg_name');
                fail("$ew.arg_name", "$r->{optype} has no " . ($var eq 'tin' ? 'input' : 'output')
                     . " tensor '$e->{arg_name}'") if !$set->{ $e->{arg_name} };
                fail($ew, 'needs exactly one of tensor, new') if (exists $e->{tensor}) == (exists $e->{new});
                if (exists $e->{tensor}) {
                    my $tn = tensor_name_c("$ew.tensor", $pat, $e->{tensor});
                    my ($si, $sa) = ref_parse("$ew.tensor", $pat, $e->{tensor});
                    if (($op{ $pat->[$si] }{_tin}{$sa} // {})->{optional}) {
                        push @lines, "$var = NULL;" if $first;
                        push @lines, "if ($tn)\n    $var = ln_tensor_list_append($var, \"$e->{arg_name}\",\n"
                            . "                    $tn);";
                    } else {
                        push @lines, "$var = ln_tensor_list_append(" . ($first ? "NULL" : $var) . ", \"$e->{arg_name}\",\n"
                            . "                    $tn);";
                    }
                } else {
                    fail("$ew.new", 'must be a C identifier suffix') if $e->{new} !~ /^\w+$/;
                    push @lines, "name = ln_sprintf(\"%s_%s\", op0->op_arg->name, \"$e->{new}\");",
                                 "$var = ln_tensor_list_append(" . ($first ? "NULL" : $var) . ", \"$e->{arg_name}\", name);",
                                 'ln_free(name);';
                    push @news, 1;
                }
                $first = 0;
            }
            push @lines, "$var = NULL;" if $first;
        }
        if (!exists $r->{params}) {
            push @lines, 'params = ln_param_list_copy(op0->op_arg->params);';
        } else {
            push @lines, 'params = NULL;';
            for my $j (0 .. $#{ $r->{params} }) {
                my $e = $r->{params}[$j];
                my $ew = "$rw.params[$j]";
                check_keys($ew, $e, { arg_name => 'str', param => 'str', value => 'any', copy => 'str' });
                if (exists $e->{copy}) {
                    fail($ew, 'copy stands alone') if keys %$e != 1;
                    fail("$ew.copy", 'must be an op index of the pattern')
                        if $e->{copy} !~ /^\d+$/ || $e->{copy} >= @$pat;
                    $used->{copy_params} = 1;
                    push @lines, "params = copy_params(params, op$e->{copy}->op_arg->params);";
                    next;
                }
                fail($ew, 'missing field arg_name') if !exists $e->{arg_name};
                fail("$ew.arg_name", "$r->{optype} has no param '$e->{arg_name}'")
                    if !$t->{_par}{ $e->{arg_name} };
                fail($ew, 'needs exactly one of param, value, copy')
                    if (exists $e->{param}) == (exists $e->{value});
                my $a = $e->{arg_name};
                if (exists $e->{param}) {
                    my ($pe, $pd) = param_c("$ew.param", $pat, $e->{param});
                    $used->{copy_param} = 1;
                    if (!exists $pd->{default}) {
                        push @lines, "params = copy_param(params, \"$a\", $pe);";
                        next;
                    }
                    # an absent source param stands for its own default, not
                    # for the default of the param it is copied into
                    if (is_num($pd->{default})) {
                        $used->{copy_param_or} = 1;
                        push @lines, "params = copy_param_or(params, \"$a\", $pe, $pd->{default});";
                        next;
                    }
                    push @lines, "if ($pe)\n    params = copy_param(params, \"$a\", $pe);\nelse {\n"
                        . join("\n", map { "    $_" } split /\n/, param_value_c("$ew.param", $a, $pd->{default}, "default_${k}_$j"))
                        . "\n}";
                    next;
                }
                push @lines, param_value_c("$ew.value", $a, $e->{value}, "value_${k}_$j");
            }
        }
        my $name;
        if (exists $r->{name}) {
            fail("$rw.name", 'must be a C identifier suffix') if $r->{name} !~ /^\w+$/;
            $name = "name = ln_sprintf(\"%s_%s\", op0->op_arg->name, \"$r->{name}\");";
        } elsif ($k > 0) {
            $name = "name = ln_sprintf(\"%s_%d\", op0->op_arg->name, $k);";
        }
        push @lines, $name if $name;
        push @lines, "ops = ln_list_append(ops, new_op(\"$r->{optype}\", " . ($name ? 'name' : 'op0->op_arg->name')
            . ", tin, tout, params,\n                                   op0->op_arg->tensor_table));";
        push @lines, 'ln_free(name);' if $name;
        $c .= join('', map { my $l = $_; $l =~ s/^/    /mg; "$l\n" } @lines);
        $used->{_name} = 1 if $name || @news;
        $used->{_roots}{ $t->{_root} } = 1;
    }
    return $c;
}

sub indent { my ($s, $n) = @_; my $p = ' ' x $n; $s =~ s/^(?=.)/$p/mg; return $s; }

# Statements of one rule, inside the function body ($n: indent).
sub rule_c {
    my ($where, $pat, $rule, $used, $what) = @_;
    my @conds;
    my %guards;
    for my $j (0 .. $#{ $rule->{cond} // [] }) {
        my @c = cond_c("$where.cond[$j]", $pat, $rule->{cond}[$j], $used);
        push @conds, @c;
    }
    my %seen_c;
    @conds = grep { !$seen_c{$_}++ } @conds;
    my $build = replace_c("$where.replace", $pat, $rule->{replace}, $used);
    my $warn = '';
    if (defined $rule->{warn}) {
        $warn = "    fprintf(stderr, \"warning: %s (%s): %s\\n\", op0->op_arg->name,\n"
              . "            op0->op_arg->optype, " . c_str($rule->{warn}) . ");\n";
    }
    return (\@conds, $warn . $build);
}

sub decls {
    my ($used) = @_;
    my $d = "    ln_list *ops = NULL, *tin, *tout, *params;\n";
    $d .= "    char *name;\n" if $used->{_name};
    return $d;
}

my %out_files;
for my $f (@files) {
    my $path = "$opt{descs}/$f";
    my $desc = json_read($path);
    check_keys($path, $desc, { arch => 'str', doc => 'str', expand_default => 'bool',
                               expanders => 'array', combiners => 'array' }, 'arch');
    my $arch = $desc->{arch};
    fail("$path: arch", "unknown arch '$arch'") if $arch !~ /^\w+$/ || $arch eq 'none';

    # expanders: explicit rules per abstract optype, then the default X -> X_<arch>
    my %rules;
    for my $i (0 .. $#{ $desc->{expanders} // [] }) {
        my $e = $desc->{expanders}[$i];
        my $w = "$path: expanders[$i]";
        check_keys($w, $e, { optype => 'str', doc => 'str', rules => 'array' }, 'optype', 'rules');
        my $d = $op{ $e->{optype} } // fail("$w.optype", "no description of optype '$e->{optype}'");
        fail("$w.optype", "'$e->{optype}' is not an abstract op (arch none)") if $d->{arch} ne 'none';
        fail("$w.optype", "'$e->{optype}' has rules twice") if $rules{ $e->{optype} };
        for my $j (0 .. $#{ $e->{rules} }) {
            check_keys("$w.rules[$j]", $e->{rules}[$j],
                       { doc => 'str', cond => 'array', warn => 'str', replace => 'array' }, 'replace');
        }
        $rules{ $e->{optype} } = [ $w, $e ];
    }
    my @abstract = sort grep { $op{$_}{arch} eq 'none' } keys %op;
    my %helpers_ep;
    my (@uses_ep, @uses_cb);
    my (@ep_funcs, @ep_table, @ep_defaults);
    for my $o (@abstract) {
        my $default = $desc->{expand_default} && $op{"${o}_$arch"} ? "${o}_$arch" : undef;
        next if !$rules{$o} && !$default;
        if (!$rules{$o}) {
            # only the default X -> X_<arch>: a row, expanded by ln_pass_expander
            push @ep_defaults, "    {\"$o\", \"$default\"},\n";
            next;
        }
        my %used;
        my $body = '';
        my @pat = ($o);
        my %roots = ($op{$o}{_root} => 1);
        if ($rules{$o}) {
            my ($w, $e) = @{ $rules{$o} };
            for my $j (0 .. $#{ $e->{rules} }) {
                my $rule = $e->{rules}[$j];
                my %u;
                my ($conds, $build) = rule_c("$w.rules[$j]", \@pat, $rule, \%u);
                $used{$_} = $u{$_} for grep { $_ ne '_roots' } keys %u;
                my $guard = join(' || ', map { "defined(LN_OP_STRIP_$_)" }
                                 sort grep { !$roots{$_} } keys %{ $u{_roots} });
                push @uses_ep, [ { %roots, %{ $u{_roots} // {} } }, [ grep { !/^_/ } keys %u ] ];
                my $doc = defined $rule->{doc} ? "    /* $rule->{doc} */\n" : '';
                my $inner = "$build    *match = 1;\n    return ops;\n";
                my $blk = @$conds
                    ? "    if (" . join(" &&\n        ", @$conds) . ") {\n" . indent($inner, 4) . "    }\n"
                    : $inner;
                $blk = "#if !($guard)\n$blk#endif\n" if $guard;
                $body .= $doc . $blk;
            }
        }
        if ($default) {
            $used{new_op} = 1;
            push @uses_ep, [ {%roots}, ['new_op'] ];
            $body .= "    /* default: the same op as $default */\n"
                . "    *match = 1;\n"
                . "    return ln_list_append(NULL, new_op(\"$default\", op0->op_arg->name,\n"
                . "        ln_tensor_list_copy(op0->op_arg->tensors_in),\n"
                . "        ln_tensor_list_copy(op0->op_arg->tensors_out),\n"
                . "        ln_param_list_copy(op0->op_arg->params), op0->op_arg->tensor_table));\n";
        } else {
            $body .= "    return NULL;\n";
        }
        my $needs_ops = $body =~ /\bops\b/;
        my $d = $needs_ops ? decls(\%used) . "\n" : '';
        my $ctx = $body =~ /\bctx\b/ ? '' : "    (void)ctx;\n";
        my $fn = "static ln_list *ep_$o(const ln_context *ctx, const ln_op *op0, int *match)\n{\n"
            . $d . $ctx
            . "    *match = 0;\n    if (!ln_streq(op0->op_arg->optype, \"$o\"))\n        return NULL;\n"
            . $body . "}\n";
        $helpers_ep{$_} = 1 for keys %used;
        push @ep_funcs, "#ifndef LN_OP_STRIP_$op{$o}{_root}\n$fn#endif\n";
        push @ep_table, "#ifndef LN_OP_STRIP_$op{$o}{_root}\n    ep_$o,\n#endif\n";
    }

    # combiners
    my %helpers_cb;
    my (@cb_funcs, @cb_table, @cb_early, %cb_names);
    for my $i (0 .. $#{ $desc->{combiners} // [] }) {
        my $c = $desc->{combiners}[$i];
        my $w = "$path: combiners[$i]";
        check_keys($w, $c, { name => 'str', doc => 'str', pattern => 'array', cond => 'array',
                             warn => 'str', replace => 'array', stage => 'str' },
                   'name', 'pattern', 'replace');
        fail("$w.stage", "'$c->{stage}' is not a stage (early, late)")
            if defined $c->{stage} && $c->{stage} !~ /^(early|late)$/;
        fail("$w.name", "'$c->{name}' is not a C identifier or is used twice")
            if $c->{name} !~ /^[a-z_][a-z0-9_]*$/ || $cb_names{ $c->{name} }++;
        my @pat;
        my @links;
        fail("$w.pattern", 'needs at least 2 ops') if @{ $c->{pattern} } < 2;
        for my $j (0 .. $#{ $c->{pattern} }) {
            my $p = $c->{pattern}[$j];
            check_keys("$w.pattern[$j]", $p, { optype => 'str', link => 'object' }, 'optype');
            fail("$w.pattern[$j].optype", "no description of optype '$p->{optype}'") if !$op{ $p->{optype} };
            push @pat, $p->{optype};
        }
        for my $j (0 .. $#{ $c->{pattern} }) {
            my $l = $c->{pattern}[$j]{link} // {};
            fail("$w.pattern[$j]", 'every op after the first needs a link to an earlier op')
                if $j > 0 && !%$l;
            for my $arg (sort keys %$l) {
                my $lw = "$w.pattern[$j].link.$arg";
                fail($lw, "$pat[$j] has no input tensor '$arg'") if !$op{ $pat[$j] }{_tin}{$arg};
                my ($k) = ref_parse($lw, \@pat, $l->{$arg});
                fail($lw, 'must name an earlier op') if $k >= $j || $l->{$arg} !~ /^\d+\./;
                push @links, "ln_streq(ln_tensor_list_find_name(op$j->op_arg->tensors_in, \"$arg\"),\n"
                    . "                 " . tensor_name_c($lw, \@pat, $l->{$arg}) . ')';
            }
        }
        my %u;
        my ($conds, $build) = rule_c($w, \@pat, $c, \%u);
        my %roots = map { $op{$_}{_root} => 1 } @pat, keys %{ $u{_roots} };
        delete $u{_roots};
        $helpers_cb{$_} = 1 for keys %u;
        push @uses_cb, [ {%roots}, [ grep { !/^_/ } keys %u ] ];
        my $n = @pat;
        my $fn = defined $c->{doc} ? "/* $c->{doc} */\n" : '';
        $fn .= "static ln_list *cb_$c->{name}(const ln_context *ctx, const ln_list *win_ops,\n"
            . "                               size_t win_size, int *match)\n{\n"
            . '    const ln_op ' . join(', ', map { "*op$_" } 0 .. $n - 1) . ";\n"
            . decls(\%u) . "    const ln_list *l;\n    size_t i;\n"
            . ($build =~ /\bctx\b/ || grep({ /\bctx\b/ } @$conds) ? '' : "    (void)ctx;\n")
            . "\n    *match = 0;\n    if (win_size < $n)\n        return NULL;\n";
        $fn .= "    op$_ = " . ('' ) . 'win_ops' . ('->next' x $_) . "->data;\n" for 0 .. $n - 1;
        $fn .= '    if (' . join(" ||\n        ", map { "!ln_streq(op$_->op_arg->optype, \"$pat[$_]\")" } 0 .. $n - 1)
            . ")\n        return NULL;\n";
        my @all = (@links, @$conds);
        $fn .= '    if (!(' . join(" &&\n          ", @all) . "))\n        return NULL;\n" if @all;
        $fn .= "\n$build"
            . "    /* the rest of the window stays as it is */\n"
            . "    for (l = win_ops" . ('->next' x $n) . ", i = $n; l && i < win_size; l = l->next, i++)\n"
            . "        ops = ln_list_append(ops, ln_op_copy(l->data));\n"
            . "    *match = 1;\n    return ops;\n}\n";
        my @r = sort keys %roots;
        my $open = @r == 1 ? "#ifndef LN_OP_STRIP_$r[0]\n"
                  : "#if !(" . join(" || ", map { "defined(LN_OP_STRIP_$_)" } @r) . ")\n";
        push @cb_funcs, "$open$fn#endif\n";
        push @{ ($c->{stage} // 'late') eq 'early' ? \@cb_early : \@cb_table },
            "$open    cb_$c->{name},\n#endif\n";
    }

    # a helper is compiled when one of the rules using it is
    my $helpers = sub {
        my ($uses) = @_;
        my @out;
        for my $h (@HELPER_ORDER) {
            my %conds;
            for my $u (grep { grep { $_ eq $h } @{ $_->[1] } } @$uses) {
                $conds{ join(' || ', map { "defined(LN_OP_STRIP_$_)" } sort keys %{ $u->[0] }) } = [ sort keys %{ $u->[0] } ];
            }
            next if !%conds;
            my @c = sort keys %conds;
            my $open = @c == 1 && @{ $conds{ $c[0] } } == 1 ? "#ifndef LN_OP_STRIP_$conds{ $c[0] }[0]\n"
                     : "#if " . join(" || \\\n    ", map { @{ $conds{$_} } == 1 ? "!$_" : "!($_)" } @c) . "\n";
            push @out, "$open$HELPER{$h}#endif\n";
        }
        return join("\n", @out);
    };
    my $doc = $desc->{doc} // '';
    $doc =~ s/\n/\n * /g;
    my %defs = (GEN_DESC => $path, GEN_ARCH => $arch, GEN_DOC => $doc);
    $out_files{"ln_expander_$arch.c"} = m4_expand("$opt{templates}/expander.c.m4", {
        %defs, GEN_HELPERS => $helpers->(\@uses_ep), GEN_FUNCS => join("\n", @ep_funcs),
        GEN_TABLE => join('', @ep_table), GEN_DEFAULTS => join('', @ep_defaults) });
    $out_files{"ln_combiner_$arch.c"} = m4_expand("$opt{templates}/combiner.c.m4", {
        %defs, GEN_HELPERS => $helpers->(\@uses_cb), GEN_FUNCS => join("\n", @cb_funcs),
        GEN_TABLE => join('', @cb_table), GEN_EARLY => join('', @cb_early) });
}

write_dir($opt{out}, \%out_files);
