/*
 * test_rt_rnn.c -- LSTM, GRU and RNN kernels: layout 1 (batch first)
 * gives layout 0's outputs, transposed, bit for bit; a tanh RNN against a
 * plain double-precision loop.  (The ONNX semantics are checked against
 * ONNX Runtime by tests/onnx/patterns and the node tests.)
 */
#include <math.h>
#include <string.h>
#include "rt_test.h"

enum { S = 7, B = 3, I = 5, HS = 4 };

static void args(ln_rt_rnn_args *a, int layout, int dirs)
{
    memset(a, 0, sizeof *a);
    a->seq = S;
    a->batch = B;
    a->input = I;
    a->hidden = HS;
    a->dirs = dirs;
    a->layout = layout;
    for (int k = 0; k < 6; k++)
        a->act[k] = k % 3 == 0 ? LN_RT_RNN_SIGMOID : LN_RT_RNN_TANH;
}

START_TEST(test_rnn_layouts)
{
    static float x0[S * B * I], x1[S * B * I], w[2 * 4 * HS * I], r[2 * 4 * HS * HS];
    static float bias[2 * 8 * HS], h0[2 * B * HS], c0[2 * B * HS], p[2 * 3 * HS];
    static float h1[2 * B * HS], c1[2 * B * HS];
    static float y0[S * 2 * B * HS], y1[S * 2 * B * HS], yh0[2 * B * HS], yh1[2 * B * HS];
    static float yc0[2 * B * HS], yc1[2 * B * HS], scratch[4096];
    static const int32_t lens[B] = {7, 3, 5};
    ln_rt_rnn_args a0, a1;

    rt_fill(x0, S * B * I, -1, 1, 1);
    rt_fill(w, 2 * 4 * HS * I, -1, 1, 2);
    rt_fill(r, 2 * 4 * HS * HS, -1, 1, 3);
    rt_fill(bias, 2 * 8 * HS, -1, 1, 4);
    rt_fill(h0, 2 * B * HS, -1, 1, 5);
    rt_fill(c0, 2 * B * HS, -1, 1, 6);
    rt_fill(p, 2 * 3 * HS, -1, 1, 7);
    for (int t = 0; t < S; t++)
        for (int b = 0; b < B; b++)
            memcpy(x1 + ((size_t)b * S + t) * I, x0 + ((size_t)t * B + b) * I, I * sizeof(float));
    /* initial states: [dirs][batch][hidden], layout 1 [batch][dirs][hidden] */
    for (int d = 0; d < 2; d++)
        for (int b = 0; b < B; b++) {
            memcpy(h1 + ((size_t)b * 2 + d) * HS, h0 + ((size_t)d * B + b) * HS, HS * sizeof(float));
            memcpy(c1 + ((size_t)b * 2 + d) * HS, c0 + ((size_t)d * B + b) * HS, HS * sizeof(float));
        }
    for (int cell = 0; cell < 2; cell++) {
        args(&a0, 0, 2);
        args(&a1, 1, 2);
        a0.linear_before_reset = a1.linear_before_reset = 1;
        if (cell == 0) {
            ln_rt_lstm_f32(&a0, x0, w, r, bias, lens, h0, c0, p, y0, yh0, yc0, scratch);
            ln_rt_lstm_f32(&a1, x1, w, r, bias, lens, h1, c1, p, y1, yh1, yc1, scratch);
        } else {
            ln_rt_gru_f32(&a0, x0, w, r, bias, lens, h0, y0, yh0, scratch);
            ln_rt_gru_f32(&a1, x1, w, r, bias, lens, h1, y1, yh1, scratch);
        }
        for (int t = 0; t < S; t++)
            for (int d = 0; d < 2; d++)
                for (int b = 0; b < B; b++)
                    ck_assert_msg(!memcmp(y0 + (((size_t)t * 2 + d) * B + b) * HS,
                                          y1 + (((size_t)b * S + t) * 2 + d) * HS, HS * sizeof(float)),
                                  "cell %d: Y at t %d d %d b %d differs between layouts", cell, t, d, b);
        for (int d = 0; d < 2; d++)
            for (int b = 0; b < B; b++) {
                ck_assert(!memcmp(yh0 + ((size_t)d * B + b) * HS, yh1 + ((size_t)b * 2 + d) * HS,
                                  HS * sizeof(float)));
                if (cell == 0)
                    ck_assert(!memcmp(yc0 + ((size_t)d * B + b) * HS, yc1 + ((size_t)b * 2 + d) * HS,
                                      HS * sizeof(float)));
            }
    }
}
END_TEST

START_TEST(test_rnn_tanh_reference)
{
    static float x[S * B * I], w[HS * I], r[HS * HS], bias[2 * HS], y[S * B * HS], scratch[1024];
    double h[B][HS] = {{0}};
    ln_rt_rnn_args a;

    rt_fill(x, S * B * I, -1, 1, 11);
    rt_fill(w, HS * I, -1, 1, 12);
    rt_fill(r, HS * HS, -1, 1, 13);
    rt_fill(bias, 2 * HS, -1, 1, 14);
    args(&a, 0, 1);
    a.act[0] = LN_RT_RNN_TANH;
    ln_rt_rnn_f32(&a, x, w, r, bias, NULL, NULL, y, NULL, scratch);
    for (int t = 0; t < S; t++) {
        double hn[B][HS];
        for (int b = 0; b < B; b++)
            for (int j = 0; j < HS; j++) {
                double s = (double)bias[j] + bias[HS + j];
                for (int i = 0; i < I; i++)
                    s += (double)x[((size_t)t * B + b) * I + i] * w[j * I + i];
                for (int i = 0; i < HS; i++)
                    s += h[b][i] * r[j * HS + i];
                hn[b][j] = tanh(s);
                ck_assert_msg(fabs(hn[b][j] - y[((size_t)t * B + b) * HS + j]) < 1e-5,
                              "t %d b %d j %d: %g, reference %g", t, b, j,
                              (double)y[((size_t)t * B + b) * HS + j], hn[b][j]);
            }
        memcpy(h, hn, sizeof h);
    }
}
END_TEST

Suite *rt_rnn_suite(void)
{
    Suite *s = suite_create("rt_rnn");
    TCase *tc = tcase_create("rnn");

    tcase_add_test(tc, test_rnn_layouts);
    tcase_add_test(tc, test_rnn_tanh_reference);
    suite_add_tcase(s, tc);
    return s;
}
