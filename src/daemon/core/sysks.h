/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sysks.h: the kstats statsd keeps itself — read-only NAMED kstats of
 * unsigned values that no peer may write, reset, redefine or delete:
 * illumos's standard system kstat <unix, 0, kstat_types>, and (made by the
 * drain) statsd's own statsd:0:daemon.
 */
#ifndef STATSD_DAEMON_SYSKS_H
#define STATSD_DAEMON_SYSKS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * The modules statsd names its own kstats in: unix (illumos's system
 * kstats) and statsd (itself, and its statsd/DogStatsD series, whose
 * instances are a hash of the series anyone can compute). No peer may
 * create a kstat in them: one could otherwise take the instances where a
 * statsd series is going to be made, and that series would be refused,
 * or pass its own kstat off as a series or as statsd's.
 */
#define SYSKS_MODULE_UNIX	"unix"
#define SYSKS_MODULE_STATSD	"statsd"

static inline bool
sysks_module_own(const char *module)
{
	return strcmp(module, SYSKS_MODULE_UNIX) == 0 ||
	    strcmp(module, SYSKS_MODULE_STATSD) == 0;
}

struct statsd;
struct reg_kstat;

/* One of statsd's own kstats: NAMED, of class class_, owned by statsd,
 * one INT_U64 value per name, all 0: a SUM where it counts (a counter),
 * a LAST where it is a level (sysks.c says which). */
struct sysks_spec {
	const char		*tplname;
	const char		*module;
	const char		*name;
	const char		*class_;
	const char		*desc;
	const char *const	*names;
	uint16_t		 n;
	uint32_t		 flags;		/* KSTAT_FLAG_* */
	uint32_t		 zone;		/* ZONE_ALL or ZONE_GLOBAL */
};

/*
 * sysks_create: make the kstat s describes, marked statsd's own.
 * Returns: 0 and *ret; -errno (logged).
 */
int sysks_create(struct statsd *d, const struct sysks_spec *s,
    struct reg_kstat **ret);

/*
 * sysks_set: set its values (v[i] for names[i]), as one update at now.
 */
void sysks_set(struct statsd *d, struct reg_kstat *k, const uint64_t *v,
    uint16_t n, uint64_t now);

/*
 * sysks_kstat_types: <unix, 0, kstat_types> (illumos kstat(3KSTAT)): a
 * NAMED kstat whose names are the kstat types and whose values are their
 * numbers ("i/o" = 3), in every chain.
 * Returns: 0; -errno (logged).
 */
int sysks_kstat_types(struct statsd *d);

#endif
