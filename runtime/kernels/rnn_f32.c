/*
 * rnn_f32.c -- ONNX LSTM, GRU and RNN, float32 (ln_rt.h).  One cell type,
 * one direction at a time: for each step t (backwards for a reverse
 * direction), gates = x_t W^T + h R^T + biases for every batch row, then
 * the cell's update; a batch row past its sequence length keeps its state
 * and writes zeros to y.  Scratch: the gates of one step, and the h (and c)
 * state.
 */
#include <math.h>
#include "ln_rt_internal.h"

static float act(ln_rt_rnn_act a, float v)
{
    switch (a) {
    case LN_RT_RNN_SIGMOID: return 1.0f / (1.0f + ln_rt__expf(-v));
    case LN_RT_RNN_TANH: return tanhf(v);
    case LN_RT_RNN_RELU: return v > 0.0f ? v : 0.0f;
    default: return v;
    }
}

static float clipv(const ln_rt_rnn_args *a, float v)
{
    if (a->clip > 0.0f)
        v = v < -a->clip ? -a->clip : v > a->clip ? a->clip : v;
    return v;
}

/* g[b][k] = bias_w[k] + bias_r[k] + x_t[b] . w[k] (k < rows), the input
 * part of the gates */
static void input_gates(const ln_rt_rnn_args *a, const float *x, int32_t t, const float *w,
                        const float *bw, int32_t rows, float *g)
{
    for (int32_t b = 0; b < a->batch; b++) {
        const float *xt = a->layout ? x + ((size_t)b * a->seq + t) * a->input
                                    : x + ((size_t)t * a->batch + b) * a->input;
        for (int32_t k = 0; k < rows; k++) {
            const float *wk = w + (size_t)k * a->input;
            float s = bw ? bw[k] : 0.0f;
            for (int32_t i = 0; i < a->input; i++)
                s += xt[i] * wk[i];
            g[(size_t)b * rows + k] = s;
        }
    }
}

/* s = h . r[k] (+ bias) */
static float rdot(const float *h, const float *rk, int32_t n, const float *br, int32_t k)
{
    float s = br ? br[k] : 0.0f;
    for (int32_t i = 0; i < n; i++)
        s += h[i] * rk[i];
    return s;
}

static float *y_at(const ln_rt_rnn_args *a, float *y, int32_t t, int32_t d, int32_t b)
{
    return a->layout ? y + (((size_t)b * a->seq + t) * a->dirs + d) * a->hidden
                     : y + (((size_t)t * a->dirs + d) * a->batch + b) * a->hidden;
}

static float *state_at(const ln_rt_rnn_args *a, float *s, int32_t d, int32_t b)
{
    return a->layout ? s + ((size_t)b * a->dirs + d) * a->hidden
                     : s + ((size_t)d * a->batch + b) * a->hidden;
}

static int32_t len_of(const ln_rt_rnn_args *a, const int32_t *seq_lens, int32_t b)
{
    int32_t l = seq_lens ? seq_lens[b] : a->seq;
    return l < 0 ? 0 : l > a->seq ? a->seq : l;
}

enum { CELL_LSTM, CELL_GRU, CELL_RNN };

static int32_t gates_of(int cell)
{
    return cell == CELL_LSTM ? 4 : cell == CELL_GRU ? 3 : 1;
}

static size_t scratch_floats(const ln_rt_rnn_args *a, int cell)
{
    int32_t g = gates_of(cell);
    /* input gates, h, c, new h */
    return (size_t)a->batch * a->hidden * (size_t)(g + 3);
}

/* one direction d of one cell type */
static void run_dir(int cell, const ln_rt_rnn_args *a, int32_t d, const float *x,
                    const float *weight, const float *recurrence, const float *bias,
                    const int32_t *seq_lens, const float *h0, const float *c0, const float *p,
                    float *y, float *y_h, float *y_c, float *scratch)
{
    int32_t G = gates_of(cell), H = a->hidden, rows = G * H;
    const float *w = weight + (size_t)d * rows * a->input;
    const float *r = recurrence + (size_t)d * rows * H;
    const float *bw = bias ? bias + (size_t)d * 2 * rows : NULL;
    const float *br = bias ? bw + rows : NULL;
    const float *pd = p ? p + (size_t)d * 3 * H : NULL;
    ln_rt_rnn_act f = (ln_rt_rnn_act)a->act[d * 3], g = (ln_rt_rnn_act)a->act[d * 3 + 1];
    ln_rt_rnn_act hh = (ln_rt_rnn_act)a->act[d * 3 + 2];
    float *gx = scratch, *h = gx + (size_t)a->batch * rows, *c = h + (size_t)a->batch * H;
    float *hn = c + (size_t)a->batch * H;
    int back = a->dirs == 2 ? d == 1 : a->reverse;

    for (int32_t b = 0; b < a->batch; b++)
        for (int32_t j = 0; j < H; j++) {
            /* [dirs][batch][hidden], layout 1 [batch][dirs][hidden], like y_h */
            size_t s0 = (a->layout ? (size_t)b * a->dirs + d : (size_t)d * a->batch + b) * H + j;
            h[(size_t)b * H + j] = h0 ? h0[s0] : 0.0f;
            c[(size_t)b * H + j] = c0 ? c0[s0] : 0.0f;
        }
    for (int32_t step = 0; step < a->seq; step++) {
        int32_t t = back ? a->seq - 1 - step : step;
        input_gates(a, x, t, w, bw, rows, gx);
        for (int32_t b = 0; b < a->batch; b++) {
            float *hb = h + (size_t)b * H, *cb = c + (size_t)b * H, *nb = hn + (size_t)b * H;
            const float *gb = gx + (size_t)b * rows;
            int32_t len = len_of(a, seq_lens, b);
            int live = back ? t < len : t < len;
            if (!live) {
                if (y)
                    for (int32_t j = 0; j < H; j++)
                        y_at(a, y, t, d, b)[j] = 0.0f;
                continue;
            }
            for (int32_t j = 0; j < H; j++) {
                if (cell == CELL_LSTM) {
                    float gi = gb[j] + rdot(hb, r + (size_t)j * H, H, br, j);
                    float go = gb[H + j] + rdot(hb, r + (size_t)(H + j) * H, H, br, H + j);
                    float gf = gb[2 * H + j] + rdot(hb, r + (size_t)(2 * H + j) * H, H, br, 2 * H + j);
                    float gc = gb[3 * H + j] + rdot(hb, r + (size_t)(3 * H + j) * H, H, br, 3 * H + j);
                    float i_, f_, c_, o_, cn;
                    if (pd) {
                        gi += pd[j] * cb[j];
                        gf += pd[2 * H + j] * cb[j];
                    }
                    i_ = act(f, clipv(a, gi));
                    f_ = a->input_forget ? 1.0f - i_ : act(f, clipv(a, gf));
                    c_ = act(g, clipv(a, gc));
                    cn = f_ * cb[j] + i_ * c_;
                    if (pd)
                        go += pd[H + j] * cn;
                    o_ = act(f, clipv(a, go));
                    nb[j] = o_ * act(hh, cn);
                    gx[(size_t)b * rows + 3 * H + j] = cn;   /* c, kept until the step ends */
                } else if (cell == CELL_GRU) {
                    /* z and r of every unit first: the candidate reads all of r */
                    float gz = gb[j] + rdot(hb, r + (size_t)j * H, H, br, j);
                    float gr = gb[H + j] + rdot(hb, r + (size_t)(H + j) * H, H, br, H + j);
                    nb[j] = act(f, clipv(a, gz));
                    gx[(size_t)b * rows + H + j] = act(f, clipv(a, gr));
                } else {
                    float s = gb[j] + rdot(hb, r + (size_t)j * H, H, br, j);
                    nb[j] = act(f, clipv(a, s));
                }
            }
            if (cell == CELL_GRU) {
                const float *rg = gx + (size_t)b * rows + H;
                for (int32_t j = 0; j < H; j++) {
                    const float *rh = r + (size_t)(2 * H + j) * H;
                    float gh, z = nb[j];
                    if (a->linear_before_reset) {
                        gh = gb[2 * H + j] + rg[j] * rdot(hb, rh, H, br, 2 * H + j);
                    } else {
                        float s = br ? br[2 * H + j] : 0.0f;
                        for (int32_t i = 0; i < H; i++)
                            s += rg[i] * hb[i] * rh[i];
                        gh = gb[2 * H + j] + s;
                    }
                    /* z is in nb[j]; the new h goes to the candidate's slot */
                    gx[(size_t)b * rows + 2 * H + j] = (1.0f - z) * act(g, clipv(a, gh)) + z * hb[j];
                }
                for (int32_t j = 0; j < H; j++)
                    nb[j] = gx[(size_t)b * rows + 2 * H + j];
            }
            for (int32_t j = 0; j < H; j++) {
                hb[j] = nb[j];
                if (cell == CELL_LSTM)
                    cb[j] = gx[(size_t)b * rows + 3 * H + j];
                if (y)
                    y_at(a, y, t, d, b)[j] = nb[j];
            }
        }
    }
    for (int32_t b = 0; b < a->batch; b++)
        for (int32_t j = 0; j < H; j++) {
            if (y_h)
                state_at(a, y_h, d, b)[j] = h[(size_t)b * H + j];
            if (y_c)
                state_at(a, y_c, d, b)[j] = c[(size_t)b * H + j];
        }
}

size_t ln_rt_lstm_f32_scratch_size(const ln_rt_rnn_args *a)
{
    return scratch_floats(a, CELL_LSTM) * sizeof(float);
}

size_t ln_rt_gru_f32_scratch_size(const ln_rt_rnn_args *a)
{
    return scratch_floats(a, CELL_GRU) * sizeof(float);
}

size_t ln_rt_rnn_f32_scratch_size(const ln_rt_rnn_args *a)
{
    return scratch_floats(a, CELL_RNN) * sizeof(float);
}

void ln_rt_lstm_f32(const ln_rt_rnn_args *a, const float *x, const float *weight,
                    const float *recurrence, const float *bias, const int32_t *seq_lens,
                    const float *initial_h, const float *initial_c, const float *peephole,
                    float *y, float *y_h, float *y_c, void *scratch)
{
    for (int32_t d = 0; d < a->dirs; d++)
        run_dir(CELL_LSTM, a, d, x, weight, recurrence, bias, seq_lens, initial_h, initial_c,
                peephole, y, y_h, y_c, scratch);
}

void ln_rt_gru_f32(const ln_rt_rnn_args *a, const float *x, const float *weight,
                   const float *recurrence, const float *bias, const int32_t *seq_lens,
                   const float *initial_h, float *y, float *y_h, void *scratch)
{
    for (int32_t d = 0; d < a->dirs; d++)
        run_dir(CELL_GRU, a, d, x, weight, recurrence, bias, seq_lens, initial_h, NULL, NULL,
                y, y_h, NULL, scratch);
}

void ln_rt_rnn_f32(const ln_rt_rnn_args *a, const float *x, const float *weight,
                   const float *recurrence, const float *bias, const int32_t *seq_lens,
                   const float *initial_h, float *y, float *y_h, void *scratch)
{
    for (int32_t d = 0; d < a->dirs; d++)
        run_dir(CELL_RNN, a, d, x, weight, recurrence, bias, seq_lens, initial_h, NULL, NULL,
                y, y_h, NULL, scratch);
}
