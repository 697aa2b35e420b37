/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sbuf.c: the sbuf(9)-style string buffer: construction in every
 * ownership combination, growth, the latched error of a full fixed buffer
 * (keeping the prefix that fits), and the accessors.
 */
#include <errno.h>
#include <stdarg.h>

#include "unit.h"

START_TEST(new_auto_grows)
{
	struct sbuf *s = sbuf_new_auto();
	ssize_t i;

	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(sbuf_data(s), "");
	ck_assert_int_eq(sbuf_len(s), 0);
	for (i = 0; i < 10000; i++)
		ck_assert_int_eq(sbuf_putc(s, 'a' + (int)(i % 26)), 0);
	ck_assert_int_eq(sbuf_len(s), 10000);
	ck_assert_int_eq(sbuf_error(s), 0);
	ck_assert_int_eq(sbuf_finish(s), 0);
	for (i = 0; i < 10000; i++)
		ck_assert_int_eq(sbuf_data(s)[i], 'a' + (int)(i % 26));
	ck_assert_int_eq(sbuf_data(s)[10000], '\0');
	sbuf_delete(s);
}
END_TEST

START_TEST(new_bad_arguments)
{
	struct sbuf sb;
	char buf[8];

	ck_assert_ptr_null(sbuf_new(NULL, NULL, -1, SBUF_AUTOEXTEND));
	ck_assert_ptr_null(sbuf_new(NULL, NULL, 16, 0x100));
	ck_assert_ptr_null(sbuf_new(&sb, buf, 0, 0));
	ck_assert_ptr_null(sbuf_new(&sb, buf, 0, SBUF_AUTOEXTEND));
}
END_TEST

START_TEST(new_caller_struct_and_buffer_fixed)
{
	struct sbuf sb, *s;
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	s = sbuf_new(&sb, buf, sizeof(buf), SBUF_FIXEDLEN);
	ck_assert_ptr_eq(s, &sb);
	ck_assert_ptr_eq(sbuf_data(s), buf);
	ck_assert_int_eq(buf[0], '\0');
	/* Seven characters and the NUL fit exactly. */
	ck_assert_int_eq(sbuf_cat(s, "abcdefg"), 0);
	ck_assert_str_eq(buf, "abcdefg");
	ck_assert_int_eq(sbuf_error(s), 0);
	/* The eighth does not: ENOMEM latches, the text stays. */
	ck_assert_int_eq(sbuf_putc(s, 'h'), -1);
	ck_assert_int_eq(sbuf_error(s), ENOMEM);
	ck_assert_int_eq(sbuf_len(s), -1);
	ck_assert_str_eq(sbuf_data(s), "abcdefg");
	/* Everything after an error fails without touching the text. */
	ck_assert_int_eq(sbuf_cat(s, ""), -1);
	ck_assert_int_eq(sbuf_printf(s, "%d", 1), -1);
	ck_assert_int_eq(sbuf_bcat(s, "z", 1), -1);
	ck_assert_str_eq(sbuf_data(s), "abcdefg");
	errno = 0;
	ck_assert_int_eq(sbuf_finish(s), -1);
	ck_assert_int_eq(errno, ENOMEM);
	/* sbuf_clear forgets the error. */
	sbuf_clear(s);
	ck_assert_int_eq(sbuf_error(s), 0);
	ck_assert_int_eq(sbuf_len(s), 0);
	ck_assert_str_eq(sbuf_data(s), "");
	ck_assert_int_eq(sbuf_cat(s, "ok"), 0);
	ck_assert_int_eq(sbuf_finish(s), 0);
	ck_assert_str_eq(buf, "ok");
	sbuf_delete(s);
	/* delete does not free caller memory; it zeroes the struct. */
	ck_assert_ptr_null(sb.s_buf);
}
END_TEST

START_TEST(fixed_keeps_prefix_that_fits)
{
	struct sbuf sb, *s;
	char buf[6];

	s = sbuf_new(&sb, buf, sizeof(buf), 0);
	ck_assert_int_eq(sbuf_cat(s, "ab"), 0);
	ck_assert_int_eq(sbuf_cat(s, "cdefgh"), -1);
	ck_assert_str_eq(buf, "abcde");
	ck_assert_int_eq(sbuf_error(s), ENOMEM);
	sbuf_delete(s);
}
END_TEST

START_TEST(fixed_long_printf_keeps_prefix)
{
	struct sbuf *s = sbuf_new(NULL, NULL, 300, SBUF_FIXEDLEN);
	char big[600];

	ck_assert_ptr_nonnull(s);
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	/* Longer than the 256-byte fast path and than the buffer. */
	ck_assert_int_eq(sbuf_printf(s, "<%s>", big), -1);
	ck_assert_int_eq(sbuf_error(s), ENOMEM);
	ck_assert_uint_eq(strlen(sbuf_data(s)), 299);
	ck_assert_int_eq(sbuf_data(s)[0], '<');
	ck_assert_int_eq(sbuf_data(s)[298], 'q');
	sbuf_delete(s);
}
END_TEST

START_TEST(default_fixed_size_is_64)
{
	struct sbuf *s = sbuf_new(NULL, NULL, 0, 0);
	char line[65];

	ck_assert_ptr_nonnull(s);
	memset(line, 'x', 64);
	line[64] = '\0';
	ck_assert_int_eq(sbuf_bcat(s, line, 63), 0);
	ck_assert_int_eq(sbuf_putc(s, 'y'), -1);
	ck_assert_int_eq(sbuf_error(s), ENOMEM);
	sbuf_delete(s);
}
END_TEST

START_TEST(caller_buffer_autoextend_moves_to_heap)
{
	struct sbuf sb, *s;
	char buf[4] = "zzz";
	int i;

	s = sbuf_new(&sb, buf, sizeof(buf), SBUF_AUTOEXTEND);
	ck_assert_ptr_eq(s, &sb);
	ck_assert_int_eq(sbuf_cat(s, "abc"), 0);
	ck_assert_ptr_eq(sbuf_data(s), buf);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(sbuf_printf(s, "%02d", i), 0);
	ck_assert_ptr_ne(sbuf_data(s), buf);
	ck_assert_int_eq(sbuf_len(s), 203);
	ck_assert_int_eq(strncmp(sbuf_data(s), "abc000102", 9), 0);
	ck_assert_str_eq(sbuf_data(s) + 199, "9899");
	ck_assert_int_eq(sbuf_finish(s), 0);
	sbuf_delete(s);
}
END_TEST

START_TEST(allocated_storage_in_caller_struct)
{
	struct sbuf sb, *s;

	s = sbuf_new(&sb, NULL, 16, SBUF_AUTOEXTEND);
	ck_assert_ptr_eq(s, &sb);
	ck_assert_int_eq(sbuf_printf(s, "%s-%s", "0123456789", "0123456789"),
	    0);
	ck_assert_str_eq(sbuf_data(s), "0123456789-0123456789");
	sbuf_delete(s);
	sbuf_delete(NULL);
}
END_TEST

START_TEST(printf_formats_and_long_output)
{
	struct sbuf *s = sbuf_new_auto();
	char big[1000];

	memset(big, 'r', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(sbuf_printf(s, "%d|%u|%s|%c|%jd", -5, 7u, "x", 'y',
	    (intmax_t)INT64_MIN), 0);
	ck_assert_str_eq(sbuf_data(s), "-5|7|x|y|-9223372036854775808");
	sbuf_clear(s);
	ck_assert_int_eq(sbuf_printf(s, "[%s]", big), 0);
	ck_assert_int_eq(sbuf_len(s), 1001);
	ck_assert_int_eq(sbuf_data(s)[0], '[');
	ck_assert_int_eq(sbuf_data(s)[1000], ']');
	sbuf_delete(s);
}
END_TEST

static int call_vprintf(struct sbuf *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
call_vprintf(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int rv;

	va_start(ap, fmt);
	rv = sbuf_vprintf(s, fmt, ap);
	va_end(ap);
	return rv;
}

START_TEST(vprintf_appends)
{
	struct sbuf *s = sbuf_new_auto();

	ck_assert_int_eq(sbuf_cat(s, "a"), 0);
	ck_assert_int_eq(call_vprintf(s, "%s%d", "b", 3), 0);
	ck_assert_str_eq(sbuf_data(s), "ab3");
	sbuf_delete(s);
}
END_TEST

START_TEST(bcat_binary_and_putc)
{
	struct sbuf *s = sbuf_new_auto();

	ck_assert_int_eq(sbuf_bcat(s, "a\0b", 3), 0);
	ck_assert_int_eq(sbuf_len(s), 3);
	ck_assert_int_eq(memcmp(sbuf_data(s), "a\0b", 4), 0);
	ck_assert_int_eq(sbuf_bcat(s, "", 0), 0);
	ck_assert_int_eq(sbuf_putc(s, '!'), 0);
	ck_assert_int_eq(sbuf_len(s), 4);
	ck_assert_int_eq(sbuf_data(s)[3], '!');
	ck_assert_int_eq(sbuf_data(s)[4], '\0');
	sbuf_delete(s);
}
END_TEST

START_TEST(clear_after_finish_reopens)
{
	struct sbuf *s = sbuf_new_auto();

	sbuf_cat(s, "abc");
	ck_assert_int_eq(sbuf_finish(s), 0);
	sbuf_clear(s);
	ck_assert_int_eq(sbuf_cat(s, "de"), 0);
	ck_assert_int_eq(sbuf_finish(s), 0);
	ck_assert_str_eq(sbuf_data(s), "de");
	sbuf_delete(s);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("sbuf");
	TCase *tc = tcase_create("sbuf");

	tcase_add_test(tc, new_auto_grows);
	tcase_add_test(tc, new_bad_arguments);
	tcase_add_test(tc, new_caller_struct_and_buffer_fixed);
	tcase_add_test(tc, fixed_keeps_prefix_that_fits);
	tcase_add_test(tc, fixed_long_printf_keeps_prefix);
	tcase_add_test(tc, default_fixed_size_is_64);
	tcase_add_test(tc, caller_buffer_autoextend_moves_to_heap);
	tcase_add_test(tc, allocated_storage_in_caller_struct);
	tcase_add_test(tc, printf_formats_and_long_output);
	tcase_add_test(tc, vprintf_appends);
	tcase_add_test(tc, bcat_binary_and_putc);
	tcase_add_test(tc, clear_after_finish_reopens);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
