// SPDX-License-Identifier: MIT
#include <string.h>

#include "gateway/inst.h"

/* The per-instrument Enter Order prototype: IOC, principal, displayed. */
static void build_template(struct gw_inst *in, const char *firm)
{
	struct ouch_enter_order o;

	memset(&o, 0, sizeof(o));
	memcpy(o.stock, in->symbol, 8);
	o.tif = OUCH_TIF_IOC;
	memset(o.firm, ' ', sizeof(o.firm));
	memcpy(o.firm, firm, strnlen(firm, sizeof(o.firm)));
	o.display = 'Y';
	o.capacity = 'P';
	o.iso = 'N';
	o.min_qty = 0;
	o.cross_type = 'N';
	o.customer_type = 'R';
	ouch_order_tmpl_init(&in->tmpl, &o);
}

int inst_init(struct gw_inst *in, const struct inst_spec *spec, const char *firm)
{
	int ret;

	memset(in, 0, sizeof(*in));
	memset(in->symbol, ' ', sizeof(in->symbol));
	memcpy(in->symbol, spec->symbol, strnlen(spec->symbol, sizeof(in->symbol)));
	in->locate = -1;
	in->unit = spec->unit;
	ret = strat_init(&in->strat, spec->length);
	if (ret)
		return ret;
	build_template(in, firm);
	return 0;
}
