/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_config.c: statsd.conf (src/daemon/config.c): defaults, values and
 * their bounds and units, errors naming file, line and key (unknown,
 * repeated, out of range, malformed), a missing file, reloads that apply
 * only the reloadable keys, and the printed configuration, which is
 * itself a valid statsd.conf that loads back to the same values.
 */
#include <errno.h>
#include <unistd.h>

#include <jansson.h>

#include "unit.h"
#include "config.h"
#include "zones.h"

/* Write text to a fresh file; its path into path. */
static void
conf_file(char *path, size_t len, const char *text)
{
	FILE *f;
	int fd;

	snprintf(path, len, "/tmp/statsd-test-config-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Load text; the error (if any) in err. */
static int
load(const char *text, struct config *c, struct input_error *err)
{
	char path[64];
	int r;

	conf_file(path, sizeof(path), text);
	memset(err, 0, sizeof(*err));
	r = config_load(path, true, c, err);
	unlink(path);
	return r;
}

START_TEST(defaults_and_values)
{
	struct config c, d;
	struct input_error err;

	ck_assert_int_eq(config_defaults(&d), 0);
	ck_assert_uint_eq(d.max_connections, 1024);
	ck_assert_uint_eq(d.watch_min_interval_ms, 100);
	ck_assert_str_eq(d.admin_group, "statsd-admin");
	/* Zones that need no privilege, by default. */
	ck_assert_uint_eq(d.zones, ZONE_KIND_CGROUP);
	ck_assert_str_eq(d.zone_cgroups, zone_cgroups_default);
	/* An empty file is the defaults; comments and blanks are nothing. */
	ck_assert_int_eq(load("# nothing\n\n   \n", &c, &err), 0);
	ck_assert_uint_eq(c.max_connections, d.max_connections);
	config_done(&c);
	ck_assert_int_eq(load("max_connections = 12\n"
	    "max_output=1M  # a comment after a value\n"
	    "admin_group = wheel\n", &c, &err), 0);
	ck_assert_uint_eq(c.max_connections, 12);
	ck_assert_uint_eq(c.max_output, 1u << 20);
	ck_assert_str_eq(c.admin_group, "wheel");
	config_done(&c);
	config_done(&d);
}
END_TEST

START_TEST(errors_name_file_line_and_key)
{
	static const struct {
		const char	*text;
		unsigned	 line;
		const char	*key;
	} bad[] = {
		{ "nosuch = 1\n", 1, "nosuch" },
		{ "max_connections = 4\nmax_connections = 5\n", 2,
		    "max_connections" },
		{ "\nmax_connections = 0\n", 2, "max_connections" },
		{ "max_connections = 12x\n", 1, "max_connections" },
		{ "max_connections\n", 1, "" },
		{ "zones = planet\n", 1, "zones" },
		/* The namespace kinds are named as such. */
		{ "zones = pid\n", 1, "zones" },
		{ "\nzone_cgroups = /docker/* docker/*\n", 2, "zone_cgroups" },
		{ "zone_cgroups = /a//b\n", 1, "zone_cgroups" },
		{ "zone_cgroups = /a/b\\\n", 1, "zone_cgroups" },
		{ "watch_min_interval_ms = 99999999999999999999\n", 1,
		    "watch_min_interval_ms" },
	};
	struct config c;
	struct input_error err;
	char buf[600];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c.max_connections = 77;
		ck_assert_msg(load(bad[i].text, &c, &err) == -EINVAL,
		    "accepted %s", bad[i].text);
		ck_assert_uint_eq(err.line, bad[i].line);
		if (bad[i].key[0] != '\0')
			ck_assert_str_eq(err.where, bad[i].key);
		ck_assert(err.msg[0] != '\0');
		/* c is left alone on error. */
		ck_assert_uint_eq(c.max_connections, 77);
		config_error_format(&err, buf, sizeof(buf));
		ck_assert_ptr_nonnull(strstr(buf, err.file));
	}
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(config_load("/nonexistent/statsd.conf", true, &c,
	    &err), -ENOENT);
	ck_assert_int_eq(config_load("/nonexistent/statsd.conf", false, &c,
	    &err), 0);
	config_done(&c);
	ck_assert_int_eq(config_load(NULL, false, &c, &err), 0);
	config_done(&c);
}
END_TEST

/* A bad pattern in zone_cgroups is named, with what is wrong with it,
 * and the good ones around it are not blamed. */
START_TEST(zone_cgroups_errors_name_the_pattern)
{
	static const struct {
		const char	*text;
		const char	*says;
	} bad[] = {
		{ "zone_cgroups = /ok/* docker/*\n",
		    "pattern \"docker/*\": not a cgroup path" },
		{ "zone_cgroups = /ok/* /\n",
		    "pattern \"/\": the root cgroup is the host" },
		{ "zone_cgroups = /a//b\n", "pattern \"/a//b\": an empty" },
		{ "zone_cgroups = /a/b/\n", "pattern \"/a/b/\": an empty" },
		{ "zone_cgroups = /a/../b\n", "'.' and '..' are not" },
		{ "zone_cgroups = /a/**/b\n", "'**' is not supported" },
		{ "zone_cgroups = /a\\/b\n", "holds no '/'" },
		{ "zone_cgroups = /a/b\\\n", "quotes nothing" },
		{ "zone_cgroups = /x/[[:nosuch:]]\n", "pattern \"/x/[[:nosuch:]]\"" },
		{ "zone_cgroups = /x/a*bcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmn\n",
		    "is too long" },
		{ "zone_cgroups = /a\x01b\n", "control characters" },
	};
	struct config c;
	struct input_error err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(load(bad[i].text, &c, &err) == -EINVAL,
		    "accepted %s", bad[i].text);
		ck_assert_str_eq(err.where, "zone_cgroups");
		ck_assert_msg(strstr(err.msg, bad[i].says) != NULL,
		    "%s: said \"%s\", not \"%s\"", bad[i].text, err.msg,
		    bad[i].says);
	}
	/* The namespace kinds were renamed: the error names today's words. */
	ck_assert_int_eq(load("zones = pid\n", &c, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "not one of cgroup, pidns, "
	    "userns, cgroupns, none"));
	/* Empty: no containers. */
	ck_assert_int_eq(load("zone_cgroups = \"\"\n", &c, &err), 0);
	ck_assert_str_eq(c.zone_cgroups, "");
	config_done(&c);
}
END_TEST

START_TEST(reload_keeps_what_cannot_change)
{
	struct config c, n;
	struct input_error err;
	char buf[256];

	ck_assert_int_eq(config_defaults(&c), 0);
	ck_assert_int_eq(load("max_connections = 9\n"
	    "socket = /tmp/elsewhere.sock\n", &n, &err), 0);
	ck_assert_int_eq(config_reload_apply(&c, &n, buf, sizeof(buf)), 1);
	ck_assert_uint_eq(c.max_connections, 9);
	ck_assert_ptr_nonnull(strstr(buf, "socket"));
	ck_assert_str_eq(c.socket, "");
	config_done(&n);
	config_done(&c);
}
END_TEST

START_TEST(printed_config_loads_back)
{
	struct config c, back;
	struct input_error err;
	char *text = NULL, *t2 = NULL, path[64];
	size_t len = 0, l2 = 0;
	json_t *a, *b;
	FILE *f;

	ck_assert_int_eq(load("max_kstats = 1234\nzones = userns\n"
	    "admin_group = adm\n"
	    "zone_cgroups =  /machine.slice/*\t/pods/p[0-9]*/\\*x  \n",
	    &c, &err), 0);
	ck_assert_str_eq(c.zone_cgroups, "/machine.slice/*\t/pods/p[0-9]*/\\*x");
	f = open_memstream(&text, &len);
	config_print(f, &c);
	fclose(f);
	conf_file(path, sizeof(path), text);
	ck_assert_int_eq(config_load(path, true, &back, &err), 0);
	unlink(path);
	a = config_to_json(&c);
	b = config_to_json(&back);
	ck_assert(json_equal(a, b));
	ck_assert_str_eq(json_string_value(json_object_get(b,
	    "max_kstats")), "1234");
	ck_assert_str_eq(json_string_value(json_object_get(b, "zones")),
	    "userns");
	ck_assert_str_eq(back.zone_cgroups, c.zone_cgroups);
	f = open_memstream(&t2, &l2);
	config_print(f, &back);
	fclose(f);
	ck_assert_str_eq(text, t2);
	json_decref(a);
	json_decref(b);
	free(text);
	free(t2);
	config_done(&c);
	config_done(&back);
}
END_TEST

/* ADDR:PORT split once for http_listen (checked at load, split at
 * start) and statsd_udp: brackets dropped, the port a number to 65535. */
START_TEST(addr_port_split_and_checked)
{
	static const struct {
		const char	*v;
		int		 r;
		const char	*addr;
		unsigned	 port;
	} cases[] = {
		{ "127.0.0.1:18125", 0, "127.0.0.1", 18125 },
		{ "[::1]:0", 0, "::1", 0 },
		{ "[fe80::1%lo]:65535", 0, "fe80::1%lo", 65535 },
		{ "::1:80", 0, "::1", 80 },	/* the last colon */
		{ "localhost:8125", 0, "localhost", 8125 },
		{ "127.0.0.1", -EINVAL, NULL, 0 },
		{ ":80", -EINVAL, NULL, 0 },
		{ "[]:80", -EINVAL, NULL, 0 },
		{ "127.0.0.1:", -ERANGE, NULL, 0 },
		{ "127.0.0.1:65536", -ERANGE, NULL, 0 },
		{ "127.0.0.1:-1", -ERANGE, NULL, 0 },
		{ "127.0.0.1: 80", -ERANGE, NULL, 0 },
		{ "127.0.0.1:80x", -ERANGE, NULL, 0 },
		{ "127.0.0.1:99999999999999999999", -ERANGE, NULL, 0 },
	};
	char addr[CONFIG_ADDR_MAX], big[CONFIG_ADDR_MAX + 8], why[256];
	unsigned short port;
	struct config c;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		port = 1;
		ck_assert_msg(config_addr_port(cases[i].v, addr, sizeof(addr),
		    &port) == cases[i].r, "%s", cases[i].v);
		if (cases[i].r == 0) {
			ck_assert_str_eq(addr, cases[i].addr);
			ck_assert_uint_eq(port, cases[i].port);
		}
	}
	/* An address that does not fit. */
	memset(big, 'a', CONFIG_ADDR_MAX);
	strcpy(big + CONFIG_ADDR_MAX, ":80");
	ck_assert_int_eq(config_addr_port(big, addr, sizeof(addr), &port),
	    -EINVAL);
	big[CONFIG_ADDR_MAX - 1] = '\0';
	big[CONFIG_ADDR_MAX - 2] = '\0';
	strcat(big, ":80");
	ck_assert_int_eq(config_addr_port(big, addr, sizeof(addr), &port), 0);
	ck_assert_uint_eq(strlen(addr), CONFIG_ADDR_MAX - 2);
	/* The load-time check says which part is wrong. */
	ck_assert_int_eq(config_defaults(&c), 0);
	ck_assert_int_eq(config_set(&c, "http_listen", "[]:80", why,
	    sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "expected ADDR:PORT"));
	ck_assert_int_eq(config_set(&c, "http_listen", "[::1]:65536", why,
	    sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "the port must be 0 (any) to 65535"));
	ck_assert_int_eq(config_set(&c, "http_listen", "", why, sizeof(why)),
	    0);
	ck_assert_int_eq(config_set(&c, "http_listen", "[::1]:0", why,
	    sizeof(why)), 0);
	config_done(&c);
}
END_TEST

static Suite *
config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");

	tcase_add_test(tc, defaults_and_values);
	tcase_add_test(tc, errors_name_file_line_and_key);
	tcase_add_test(tc, zone_cgroups_errors_name_the_pattern);
	tcase_add_test(tc, reload_keeps_what_cannot_change);
	tcase_add_test(tc, printed_config_loads_back);
	tcase_add_test(tc, addr_port_split_and_checked);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_main(config_suite());
}
