/* parflags.c - the parallel flags' defaults and checks (parflags.h). */
#include "deploy/parflags.h"

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
