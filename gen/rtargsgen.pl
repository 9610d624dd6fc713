#!/usr/bin/perl
# rtargsgen.pl -- printers for the kernel runtime's argument structs.
#
# Reads runtime/include/ln_rt.h and writes src/aot/auto/ln_aot_args.c
# and .h: for every `typedef struct {...} ln_rt_*;` a function that prints a
# value of it as a C99 designated initializer ({.ndim = 2, .a_dims = {1, 3},
# ...}), for every `typedef enum {...} ln_rt_*;` one that prints a value as
# its constant's name, a dispatcher by type name, and the list of kernels
# that return a status (int).  ln-aot uses them to turn an op's private data
# (e.g. add_cpu's ln_rt_bcast_args) into `static const` objects in emitted
# C, and to check kernel return values there.
#
# Usage (from the repository root): perl gen/rtargsgen.pl
#   [--header runtime/include/ln_rt.h] [--out src/aot/auto]
# A field whose type the generator does not know stops it with one line
# naming the struct and field, exit 1.  Output is deterministic (ln_rt.h
# order), so a second run changes nothing.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use Getopt::Long;
use LnGen qw(fail write_dir);

$LnGen::PROG = 'rtargsgen';
my %opt = (header => 'runtime/include/ln_rt.h', out => 'src/aot/auto');
GetOptions(\%opt, 'header=s', 'out=s')
    or die "usage: perl gen/rtargsgen.pl [--header FILE] [--out DIR]\n";

open my $fh, '<', $opt{header} or fail($opt{header}, "cannot open: $!");
my $text = do { local $/; <$fh> };
close $fh;

# Comments and preprocessor lines out; the rest is declarations.
$text =~ s{/\*.*?\*/}{ }gs;
$text =~ s{//[^\n]*}{}g;
$text =~ s{^\s*#[^\n]*}{}mg;

# Scalar C types and how a value of each is printed.
my %SCALAR = (
    'int'      => ['int', '"%d", v'],
    'unsigned' => ['unsigned', '"%uu", v'],
    'int32_t'  => ['int32_t', '"%ld", (long)v'],
    'uint32_t' => ['uint32_t', '"%luu", (unsigned long)v'],
    'int16_t'  => ['int16_t', '"%d", (int)v'],
    'uint16_t' => ['uint16_t', '"%uu", (unsigned)v'],
    'int8_t'   => ['int8_t', '"%d", (int)v'],
    'uint8_t'  => ['uint8_t', '"%uu", (unsigned)v'],
    'int64_t'  => ['int64_t', '"%lldLL", (long long)v'],
    'uint64_t' => ['uint64_t', '"%lluULL", (unsigned long long)v'],
    'size_t'   => ['size_t', '"%luu", (unsigned long)v'],
    'float'    => ['float', undef],
    'double'   => ['double', undef],
);

my (@types, %enum, %struct);    # in header order
while ($text =~ /typedef\s+(enum|struct)\s*(?:\w+\s*)?\{(.*?)\}\s*(\w+)\s*;/gs) {
    my ($kind, $body, $name) = ($1, $2, $3);
    next if $name !~ /^ln_rt_\w+$/;
    if ($kind eq 'enum') {
        my ($val, @c, %seen) = (-1);
        for my $item (split /,/, $body) {
            $item =~ s/^\s+|\s+$//g;
            next if $item eq '';
            my ($cn, $cv) = $item =~ /^(\w+)\s*(?:=\s*(.+))?$/
                or fail($opt{header}, "$name: cannot read enum constant '$item'");
            if (defined $cv) {
                $cv =~ /^\(?\s*(-?\d+)\s*\)?$/
                    or fail($opt{header}, "$name: $cn: value '$cv' is not an integer literal");
                $val = $1;
            } else {
                $val++;
            }
            push @c, [$cn, $val] if !$seen{$val}++;   # first name of a value
        }
        $enum{$name} = \@c;
    } else {
        my @f;
        for my $decl (split /;/, $body) {
            $decl =~ s/^\s+|\s+$//g;
            $decl =~ s/\s+/ /g;
            next if $decl eq '';
            my ($type, $rest) = $decl =~ /^((?:const )?(?:unsigned |signed )?\w+) (.+)$/
                or fail($opt{header}, "$name: cannot read field '$decl'");
            $type =~ s/^const //;
            for my $d (split /\s*,\s*/, $rest) {
                my ($fname, $dim) = $d =~ /^(\w+)\s*(?:\[\s*(\w+)\s*\])?$/
                    or fail($opt{header}, "$name: field '$d': only scalars and 1-D arrays are printed");
                fail($opt{header}, "$name.$fname: unknown type '$type'")
                    if !$SCALAR{$type} && !$enum{$type} && !$struct{$type};
                push @f, {name => $fname, type => $type, dim => $dim};
            }
        }
        $struct{$name} = \@f;
    }
    push @types, $name;
}
fail($opt{header}, 'no ln_rt_ typedefs found') if !@types;

my %status;
$status{$1} = 1 while $text =~ /(?:^|[;}])\s*int\s+(ln_rt_\w+)\s*\(/mg;
my @status = sort keys %status;

# One value of type $t at C expression $e, after the literal text $pre.
sub print_value {
    my ($t, $e, $ind, $pre) = @_;
    my $put = "${ind}ln_aot_buf_puts(b, \"$pre\");\n";
    return "$put${ind}ln_aot_buf_float(b, $e);\n" if $t eq 'float';
    return "$put${ind}ln_aot_buf_double(b, $e);\n" if $t eq 'double';
    if (my $s = $SCALAR{$t}) {
        (my $fmt = $s->[1]) =~ s/\bv\b/$e/g;
        $fmt =~ s/^"/"$pre/;
        return "${ind}ln_aot_buf_printf(b, $fmt);\n";
    }
    return "$put${ind}print_$t(b, &$e);\n";
}

# Element i of array field $f, ", " before all but the first.
sub print_elem {
    my ($f) = @_;
    my ($t, $e) = ($f->{type}, "v->$f->{name}\[i]");
    if (my $s = $SCALAR{$t}) {
        if (defined $s->[1]) {
            (my $fmt = $s->[1]) =~ s/\bv\b/$e/g;
            $fmt =~ s/^"([^"]*)", /"%s$1", i ? ", " : "", /;
            return "        ln_aot_buf_printf(b, $fmt);\n";
        }
    }
    my $one = print_value($t, $e, '        ', '') =~ s/^\s*ln_aot_buf_puts\(b, ""\);\n//r;
    return "    for (int i = 0; i < n; i++) {\n        if (i)\n            ln_aot_buf_puts(b, \", \");\n"
        . $one . "    }\n";
}

my $c = '';
for my $t (@types) {
    if (my $consts = $enum{$t}) {
        $c .= "static void print_$t(ln_aot_buf *b, const void *p)\n{\n"
            . "    const $t *v = p;\n\n    switch (*v) {\n";
        $c .= "    case $_->[0]:\n        ln_aot_buf_puts(b, \"$_->[0]\");\n        return;\n" for @$consts;
        $c .= "    }\n    ln_aot_buf_printf(b, \"($t)%d\", (int)*v);\n}\n\n";
        next;
    }
    my @f = @{ $struct{$t} };
    my $uses_n = grep { defined $_->{dim} } @f;
    $c .= "static void print_$t(ln_aot_buf *b, const void *p)\n{\n    const $t *v = p;\n";
    $c .= "    int n;\n" if $uses_n;
    $c .= "\n";
    my $first = 1;
    for my $f (@f) {
        my $pre = ($first ? '{' : ', ') . ".$f->{name} = ";
        $first = 0;
        if (!defined $f->{dim}) {
            $c .= print_value($f->{type}, "v->$f->{name}", '    ', $pre);
            next;
        }
        # trailing zero elements are left to the initializer's zero fill
        $c .= "    n = (int)(sizeof v->$f->{name} / sizeof v->$f->{name}\[0]);\n";
        $c .= "    while (n > 1 && v->$f->{name}\[n - 1] == 0)\n        n--;\n" if !$struct{ $f->{type} };
        $c .= "    ln_aot_buf_puts(b, \"$pre\{\");\n";
        my $el = print_elem($f);
        $c .= $el =~ /^    for/ ? $el : "    for (int i = 0; i < n; i++)\n$el";
        $c .= "    ln_aot_buf_putc(b, '}');\n";
    }
    $c .= "    ln_aot_buf_putc(b, '}');\n}\n\n";
}

my $table = "static const struct rt_type {\n    const char *name;\n    size_t size;\n"
    . "    int is_struct;\n    void (*print)(ln_aot_buf *b, const void *p);\n} rt_types[] = {\n";
$table .= "    {\"$_\", sizeof($_), " . ($struct{$_} ? 1 : 0) . ", print_$_},\n" for @types;
$table .= "};\n";

my $status_list = join('', map { "    \"$_\",\n" } @status);

my $banner = "/* GENERATED by gen/rtargsgen.pl from $opt{header} -- do not edit; run `make gen`. */\n";
my $h = $banner . <<'EOF2';
/*
 * ln_aot_args.h -- the kernel runtime's argument structs and enums
 * (runtime/include/ln_rt.h) printed as C99 initializers, for ln-aot.
 * These functions belong to liblightnet; the runtime itself never prints.
 */
#ifndef LN_AOT_ARGS_H
#define LN_AOT_ARGS_H

#include "../ln_aot_buf.h"

LN_CPPSTART

/* Print *value, of type ctype (an ln_rt.h struct or enum typedef name), as
 * a C99 initializer: a struct as {.field = ..., ...}, an enum as its
 * constant's name.  LN_ENOTFOUND (nothing printed) for another ctype. */
int ln_aot_args_print(ln_aot_buf *b, const char *ctype, const void *value);
/* sizeof ctype, 0 when it is not an ln_rt.h struct or enum. */
size_t ln_aot_args_size(const char *ctype);
/* LN_TRUE when ctype is an ln_rt.h struct (not an enum). */
ln_bool ln_aot_args_is_struct(const char *ctype);
/* LN_TRUE when kernel fn returns a status (LN_RT_OK or LN_RT_ARG_ERROR). */
ln_bool ln_aot_args_returns_status(const char *fn);

LN_CPPEND
#endif
EOF2

my $cfile = $banner . <<'EOF2' . $c . $table . <<"EOF3" . $status_list . <<'EOF4';
/*
 * ln_aot_args.c -- one printer per ln_rt.h argument struct and enum,
 * and the kernels that return a status.
 */
#include <string.h>
#include "ln_rt.h"
#include "ln_aot_args.h"

EOF2

static const char *const status_kernels[] = {
EOF3
    NULL
};

static const struct rt_type *find_type(const char *ctype)
{
    for (size_t i = 0; i < sizeof rt_types / sizeof rt_types[0]; i++)
        if (strcmp(rt_types[i].name, ctype) == 0)
            return &rt_types[i];
    return NULL;
}

int ln_aot_args_print(ln_aot_buf *b, const char *ctype, const void *value)
{
    const struct rt_type *t = find_type(ctype);
    if (!t)
        return ln_error(LN_ENOTFOUND, "'%s' is not a struct or enum of ln_rt.h", ctype);
    t->print(b, value);
    return 0;
}

size_t ln_aot_args_size(const char *ctype)
{
    const struct rt_type *t = find_type(ctype);
    return t ? t->size : 0;
}

ln_bool ln_aot_args_is_struct(const char *ctype)
{
    const struct rt_type *t = find_type(ctype);
    return t && t->is_struct;
}

ln_bool ln_aot_args_returns_status(const char *fn)
{
    for (int i = 0; status_kernels[i]; i++)
        if (strcmp(status_kernels[i], fn) == 0)
            return LN_TRUE;
    return LN_FALSE;
}
EOF4

write_dir($opt{out}, {'ln_aot_args.c' => $cfile, 'ln_aot_args.h' => $h});
