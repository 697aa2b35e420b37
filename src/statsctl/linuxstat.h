/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * linuxstat.h: helpers the verbs on Linux statistics (data, definition,
 * define, on, off, reset, hist of an array) share: a kstat's definition
 * lines, the check that it has Linux statistics at all, and its data
 * lines.
 */
#ifndef STATSCTL_LINUXSTAT_H
#define STATSCTL_LINUXSTAT_H

#include <jansson.h>

#include "defn.h"
#include "render_linux.h"
#include "statsctl.h"

/* A kstat's Linux definitions: as the definition file's text, and as
 * data. */
struct linux_defns {
	const char		*text;
	struct defn_view	*v;
	size_t			 n;
	json_t			*reply;		/* what they point into */
};

/*
 * linux_defn_get: k's definitions (DefinitionGet), decoded from the
 * reply's LinuxDefinition values; linux_defn_done() frees them.
 * Returns: 0; SC_EXIT_FAIL (printed).
 */
int linux_defn_get(struct sc *sc, const struct kref *k,
    struct linux_defns *ret);
void linux_defn_done(struct linux_defns *ld);

/*
 * linux_require: that k exists and has Linux statistics; otherwise
 * "statsctl: K has no Linux statistics ..." is printed.
 * Returns: 0; SC_EXIT_FAIL.
 */
int linux_require(struct sc *sc, const struct kref *k);

/* A kstat's Linux data lines: as the data file's text, and as data. */
struct linux_data {
	char			*text;
	struct linux_line	*lines;
	size_t			 n;
	json_t			*reply;		/* what the lines point into */
};

/*
 * linux_data_get: k's Linux data lines (Scrape's linux format), the
 * lines decoded from the reply's LinuxLine values; linux_data_done()
 * frees them.
 * Returns: 0; SC_EXIT_FAIL (printed).
 */
int linux_data_get(struct sc *sc, const struct kref *k,
    struct linux_data *ret);
void linux_data_done(struct linux_data *ld);

/*
 * linux_defn_set: apply definition text to k (DefinitionSet).
 * Returns: 0; SC_EXIT_FAIL (printed, naming k).
 */
int linux_defn_set(struct sc *sc, const struct kref *k, const char *text);

/*
 * linux_defn_apply: linux_require, then linux_defn_set; frees text.
 * Returns: 0; SC_EXIT_FAIL (printed).
 */
int linux_defn_apply(struct sc *sc, const struct kref *k, char *text);

#endif /* STATSCTL_LINUXSTAT_H */
