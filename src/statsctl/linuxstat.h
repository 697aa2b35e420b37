/*
 * linuxstat.h: helpers the verbs on Linux statistics (data, definition,
 * define, on, off, reset, hist of an array) share: a kstat's definition
 * lines, the check that it has Linux statistics at all, and its data
 * lines.
 */
#ifndef STATSCTL_LINUXSTAT_H
#define STATSCTL_LINUXSTAT_H

#include "statsctl.h"

/*
 * linux_defn_get: k's definition lines (DefinitionGet); *ret_text is
 * the caller's to free.
 * Returns: 0; SC_EXIT_FAIL (printed).
 */
int linux_defn_get(struct sc *sc, const struct kref *k, char **ret_text);

/*
 * linux_require: that k exists and has Linux statistics; otherwise
 * "statsctl: K has no Linux statistics ..." is printed.
 * Returns: 0; SC_EXIT_FAIL.
 */
int linux_require(struct sc *sc, const struct kref *k);

/*
 * linux_data_get: k's Linux data lines; *ret_text is the caller's.
 * Returns: 0; SC_EXIT_FAIL (printed).
 */
int linux_data_get(struct sc *sc, const struct kref *k, char **ret_text);

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
