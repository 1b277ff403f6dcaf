/* parflags.c - the parallel flags' tables, defaults and checks
 * (parflags.h). */
#include "deploy/parflags.h"

#define P(m) offsetof(struct parallel, m)
#define F(m) ARGTAB_GIVEN(struct par_flags, m)
static const struct argtab_row par_rows[] = {
	{AT_I32V("--tp", "N", P(tp), 1, 4096, NULL)}, {AT_A("--tensor-parallel-size")}, {AT_A("--tp-size")},
	{AT_I32V("--dp", "N", P(dp), 1, 4096, NULL)}, {AT_A("--data-parallel-size")}, {AT_A("--dp-size")},
	{AT_I32V("--ep", "N", P(ep), 1, 4096, NULL), .given = F(ep_given)},
	{AT_A("--ep-size")}, {AT_A("--expert-parallel-size")},
	{AT_M("--enable-expert-parallel", NULL), .given = F(enable_ep)},
	{AT_M("--enable-dp-attention", NULL), .given = F(dp_attention)},
};
static const struct argtab_row pp_rows[] = {
	{AT_I32V("--pp", "N", P(pp), 1, 4096, NULL)}, {AT_A("--pipeline-parallel-size")}, {AT_A("--pp-size")},
};
#define S(m) offsetof(struct pass_shape, m)
static const struct argtab_row shape_rows[] = {
	{AT_I("--batch-size", "B", S(batch), 1, 1 << 24, NULL)}, {AT_A("--batch")},
	{AT_I("--seq-len", "S", S(seq_len), 1, 1 << 24, NULL)}, {AT_A("--seq")},
	{AT_I("--context-len", "C", S(context_len), 0, 1 << 26, NULL)}, {AT_A("--kv-len")},
};
static const struct argtab_row list_rows[] = {
	{AT_O("--tp", "LIST", PAR_LIST_TP, NULL)}, {AT_A("--tensor-parallel-size")}, {AT_A("--tp-size")},
	{AT_O("--dp", "LIST", PAR_LIST_DP, NULL)}, {AT_A("--data-parallel-size")}, {AT_A("--dp-size")},
	{AT_O("--ep", "LIST", PAR_LIST_EP, NULL)}, {AT_A("--ep-size")}, {AT_A("--expert-parallel-size")},
	{AT_O("--pp", "LIST", PAR_LIST_PP, NULL)}, {AT_A("--pipeline-parallel-size")}, {AT_A("--pp-size")},
};
const struct argtab par_flags_tab = ARGTAB(par_rows, 0), par_flags_pp_tab = ARGTAB(pp_rows, 0),
		    par_flags_shape_tab = ARGTAB(shape_rows, 0), par_flags_list_tab = ARGTAB(list_rows, 0);

int par_flags_resolve(const struct par_flags *f, const struct model_cfg *m,
		      struct parallel *p, struct err *e)
{
	if (f->dp_attention) {
		/* SGLang: tp_size is the engine's GPU count, dp_size splits it */
		if (p->dp < 2)
			return err_set(e, SS_EUSAGE,
				       "--enable-dp-attention needs --dp-size > 1 (got %d)", p->dp);
		if (p->tp % p->dp != 0)
			return err_set(e, SS_EUSAGE,
				       "--enable-dp-attention: --tp-size %d must be a multiple of --dp-size %d",
				       p->tp, p->dp);
		p->tp /= p->dp;
	}
	if (f->enable_ep) {
		if (f->ep_given && p->ep != p->tp * p->dp)
			return err_set(e, SS_EUSAGE,
				       "--enable-expert-parallel sets EP = TP x DP = %d, but --ep %d was given",
				       p->tp * p->dp, p->ep);
		p->ep = p->tp * p->dp;
	} else if (!f->ep_given) {
		p->ep = 1;
	}
	if (p->ep > 1 && m && m->n_experts == 0 && f->enable_ep && !f->ep_given)
		p->ep = 1; /* vLLM ignores the flag on a dense model */
	return 0;
}
