/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kstat_reader.c: a libkstat consumer, as illumos's kstat(1M) -p: walks the
 * chain and prints every named value, interrupt counter, I/O and timer
 * field as module:instance:name:statistic<TAB>value. With an interval it
 * repeats, updating the chain when its KCID changes.
 *
 *   kstat_reader [MODULE [INTERVAL_S COUNT]]   (the socket: $STATSD_SOCKET)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <statsd/kstat.h>

static void
show(kstat_t *ksp)
{
	const char *m = ksp->ks_module, *n = ksp->ks_name;
	int i = ksp->ks_instance;
	unsigned k;

	switch (ksp->ks_type) {
	case KSTAT_TYPE_NAMED:
		for (k = 0; k < ksp->ks_ndata; k++) {
			kstat_named_t *kn = KSTAT_NAMED_PTR(ksp) + k;

			printf("%s:%d:%s:%s\t", m, i, n, kn->name);
			switch (kn->data_type) {
			case KSTAT_DATA_INT32:
				printf("%d\n", kn->value.i32);
				break;
			case KSTAT_DATA_UINT32:
				printf("%u\n", kn->value.ui32);
				break;
			case KSTAT_DATA_INT64:
				printf("%" PRId64 "\n", kn->value.i64);
				break;
			case KSTAT_DATA_UINT64:
				printf("%" PRIu64 "\n", kn->value.ui64);
				break;
			case KSTAT_DATA_CHAR:
				printf("%.16s\n", kn->value.c);
				break;
			default:
				printf("%s\n", KSTAT_NAMED_STR_PTR(kn));
			}
		}
		break;
	case KSTAT_TYPE_INTR:
		for (k = 0; k < KSTAT_NUM_INTRS; k++)
			printf("%s:%d:%s:intr%u\t%u\n", m, i, n, k,
			    KSTAT_INTR_PTR(ksp)->intrs[k]);
		break;
	case KSTAT_TYPE_IO: {
		kstat_io_t *io = KSTAT_IO_PTR(ksp);

		printf("%s:%d:%s:reads\t%u\n%s:%d:%s:nread\t%" PRIu64 "\n"
		    "%s:%d:%s:writes\t%u\n%s:%d:%s:rtime\t%" PRId64 "\n", m, i,
		    n, io->reads, m, i, n, io->nread, m, i, n, io->writes, m, i,
		    n, io->rtime);
		break;
	}
	case KSTAT_TYPE_TIMER:
		for (k = 0; k < ksp->ks_ndata; k++) {
			kstat_timer_t *kt = KSTAT_TIMER_PTR(ksp) + k;

			printf("%s:%d:%s:%s.num_events\t%" PRIu64 "\n", m, i, n,
			    kt->name, kt->num_events);
		}
		break;
	default:
		printf("%s:%d:%s:bytes\t%zu\n", m, i, n, ksp->ks_data_size);
	}
}

int
main(int argc, char **argv)
{
	const char *module = argc > 1 ? argv[1] : NULL;
	int interval = argc > 2 ? atoi(argv[2]) : 0;
	int count = argc > 3 ? atoi(argv[3]) : 1;
	kstat_ctl_t *kc;
	kstat_t *ksp;

	kc = kstat_open();
	if (kc == NULL) {
		perror("kstat_reader: kstat_open");
		return 1;
	}
	while (count-- > 0) {
		for (ksp = kc->kc_chain; ksp != NULL; ksp = ksp->ks_next) {
			if (module != NULL && strcmp(module, ksp->ks_module))
				continue;
			/* A changed KCID: the chain changed under us. */
			if (kstat_read(kc, ksp, NULL) == -1)
				continue;
			show(ksp);
		}
		if (count > 0) {
			sleep((unsigned)interval);
			if (kstat_chain_update(kc) == -1)
				perror("kstat_reader: kstat_chain_update");
		}
	}
	kstat_close(kc);
	return 0;
}
