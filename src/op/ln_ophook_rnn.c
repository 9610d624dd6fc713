/*
 * ln_ophook_rnn.c -- lstm / gru / rnn: output shapes, the kernel's
 * arguments and the activation check (ONNX LSTM, GRU, RNN).
 */
#include <string.h>
#include "ln_ophook.h"

/* gates of the cell: 4 (LSTM), 3 (GRU), 1 (RNN) */
static int gates(const ln_op_arg *op_arg)
{
    return !strncmp(op_arg->optype, "lstm", 4) ? 4 : !strncmp(op_arg->optype, "gru", 3) ? 3 : 1;
}

static int dirs(const ln_op_arg *op_arg)
{
    return ln_streq(ln_ophook_param_str(op_arg, "direction", "forward"), "bidirectional") ? 2 : 1;
}

static int hidden(const ln_op_arg *op_arg)
{
    const ln_tensor *r = ln_op_tensor_in(op_arg, "recurrence")->tensor;
    int h = ln_ophook_param_int(op_arg, "hidden_size", 0);

    return h > 0 ? h : r->dims[2];
}

int ln_ophook_rnn_y_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src")->tensor;
    int layout = ln_ophook_param_int(op_arg, "layout", 0);

    *ndim = 4;
    dims[0] = layout ? x->dims[0] : x->dims[0];
    dims[1] = layout ? x->dims[1] : dirs(op_arg);
    dims[2] = layout ? dirs(op_arg) : x->dims[1];
    dims[3] = hidden(op_arg);
    return 0;
}

int ln_ophook_rnn_state_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src")->tensor;
    int layout = ln_ophook_param_int(op_arg, "layout", 0);

    *ndim = 3;
    dims[0] = layout ? x->dims[0] : dirs(op_arg);
    dims[1] = layout ? dirs(op_arg) : x->dims[1];
    dims[2] = hidden(op_arg);
    return 0;
}

static int act_id(const char *name)
{
    if (ln_streq(name, "Sigmoid"))
        return LN_RT_RNN_SIGMOID;
    if (ln_streq(name, "Tanh"))
        return LN_RT_RNN_TANH;
    if (ln_streq(name, "Relu"))
        return LN_RT_RNN_RELU;
    return -1;
}

/* Are the activations ones the kernels have, as many as the cell and
 * directions take, without alpha/beta? */
ln_bool ln_ophook_rnn_acts_ok(const ln_op_arg *op_arg)
{
    const ln_param_entry *pe = ln_op_param(op_arg, "activations");
    const ln_param_entry *al = ln_op_param(op_arg, "activation_alpha");
    const ln_param_entry *be = ln_op_param(op_arg, "activation_beta");
    int per = gates(op_arg) == 4 ? 3 : gates(op_arg) == 3 ? 2 : 1;

    if ((al && al->array_len) || (be && be->array_len))
        return LN_FALSE;
    if (!pe || pe->array_len == 0)
        return LN_TRUE;
    if (pe->array_len != per * dirs(op_arg))
        return LN_FALSE;
    for (int i = 0; i < pe->array_len; i++)
        if (act_id(pe->value_array_string[i]) < 0)
            return LN_FALSE;
    return LN_TRUE;
}

void ln_ophook_rnn_args(const ln_op_arg *op_arg, ln_rt_rnn_args *a)
{
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_param_entry *pe = ln_op_param(op_arg, "activations");
    int layout = ln_ophook_param_int(op_arg, "layout", 0);
    int g = gates(op_arg), per = g == 4 ? 3 : g == 3 ? 2 : 1;
    static const int defaults[3][3] = {
        {LN_RT_RNN_SIGMOID, LN_RT_RNN_TANH, LN_RT_RNN_TANH},   /* LSTM f g h */
        {LN_RT_RNN_SIGMOID, LN_RT_RNN_TANH, LN_RT_RNN_TANH},   /* GRU f g */
        {LN_RT_RNN_TANH, LN_RT_RNN_TANH, LN_RT_RNN_TANH},      /* RNN f */
    };
    const int *def = defaults[g == 4 ? 0 : g == 3 ? 1 : 2];

    memset(a, 0, sizeof *a);
    a->layout = layout;
    a->seq = layout ? x->dims[1] : x->dims[0];
    a->batch = layout ? x->dims[0] : x->dims[1];
    a->input = x->dims[2];
    a->hidden = hidden(op_arg);
    a->dirs = dirs(op_arg);
    a->reverse = ln_streq(ln_ophook_param_str(op_arg, "direction", "forward"), "reverse");
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 3; k++) {
            int i = d * per + k;
            a->act[d * 3 + k] = k < per && pe && i < pe->array_len
                                    ? act_id(pe->value_array_string[i]) : def[k];
        }
    a->clip = ln_ophook_param_float(op_arg, "clip", 0.0f);
    a->linear_before_reset = ln_ophook_param_int(op_arg, "linear_before_reset", 0);
    a->input_forget = ln_ophook_param_int(op_arg, "input_forget", 0);
}
