/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * methods.c: the method table — each method's name, handler, parameter
 * table, right and flags. main.c hands it to the protocol layer
 * (d->methods), so that varlink.c, which every handler answers through,
 * never names a handler: calls run from the handlers down to varlink.c.
 */
#include <stddef.h>

#include "methods.h"

/* The methods: name, handler, parameters, right, flags. */
static const struct vl_method methods[] = {
	{ VL_M_GET_INFO, m_info_getinfo, m_getinfo_params,
	    RIGHT_READ, 0 },
	{ VL_M_GET_INTERFACE_DESCRIPTION, m_info_getifdesc,
	    m_getifdesc_params, RIGHT_READ, 0 },
	{ VL_M_HELLO, m_info_hello, m_hello_params, RIGHT_READ, 0 },
	{ VL_M_INFO, m_info_info, m_info_params, RIGHT_READ, 0 },
	{ VL_M_TEMPLATE_ADD, m_template_add, m_template_add_params,
	    RIGHT_OWNER, 0 },
	{ VL_M_TEMPLATE_LIST, m_template_list, m_template_list_params,
	    RIGHT_READ, VL_M_PAGES },
	{ VL_M_KSTAT_CREATE, m_kstat_create, m_kstat_create_params,
	    RIGHT_OWNER, 0 },
	{ VL_M_KSTAT_CREATE_MANY, m_kstat_create_many,
	    m_kstat_create_many_params, RIGHT_OWNER, 0 },
	{ VL_M_KSTAT_DELETE, m_kstat_delete, m_kstat_delete_params,
	    RIGHT_OWNER, 0 },
	{ VL_M_KSTAT_RELAYOUT, m_kstat_relayout, m_kstat_relayout_params,
	    RIGHT_OWNER, 0 },
	{ VL_M_RING_ATTACH, m_ring_attach, m_ring_attach_params,
	    RIGHT_OWNER, 0 },
	{ VL_M_SEGMENT_ATTACH, m_ring_segment, m_ring_segment_params,
	    RIGHT_READ, 0 },
	{ VL_M_CHAIN, m_read_chain, m_read_chain_params, RIGHT_READ,
	    VL_M_PAGES },
	{ VL_M_LOOKUP, m_read_lookup, m_read_lookup_params, RIGHT_READ,
	    VL_M_PAGES },
	{ VL_M_READ, m_read_read, m_read_read_params, RIGHT_READ,
	    VL_M_STREAMS },
	{ VL_M_WRITE, m_read_write, m_read_write_params, RIGHT_OWNER,
	    0 },
	{ VL_M_SNAPSHOT, m_read_snapshot, m_read_snapshot_params,
	    RIGHT_READ, 0 },
	{ VL_M_DEFINITION_GET, m_defn_get, m_defn_get_params, RIGHT_READ,
	    0 },
	{ VL_M_DEFINITION_SET, m_defn_set, m_defn_set_params, RIGHT_OWNER,
	    0 },
	{ VL_M_SAMPLE_RATES_GET, m_defn_rates_get, m_defn_rates_get_params,
	    RIGHT_READ, 0 },
	{ VL_M_SAMPLE_RATES_SET, m_defn_rates_set, m_defn_rates_set_params,
	    RIGHT_ADMIN, 0 },
	{ VL_M_SCRAPE, m_scrape, m_scrape_params, RIGHT_READ,
	    VL_M_STREAMS | VL_M_PAGES },
};

const struct vl_methods statsd_methods = {
	methods, sizeof(methods) / sizeof(methods[0])
};
