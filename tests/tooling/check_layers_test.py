#!/usr/bin/env python3
"""scripts/check_layers.py on small synthetic trees: each breach of the dependency rule fails with
file:line and the rule, and what the rule allows passes. Run by scripts/test.sh."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import check_layers  # noqa: E402

CMAKE = """
bloomcrawl_library(url crawler/url)
bloomcrawl_library(extract crawler/extract url)  # a comment naming frontier is no link
bloomcrawl_library(frontier frontier)
bloomcrawl_library(pipeline crawler/pipeline extract
                   frontier)
"""


class CheckLayersTest(unittest.TestCase):
    def tree(self, files, cmake=CMAKE):
        root = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(root))
        for path, text in {**files, "CMakeLists.txt": cmake}.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        return root

    def test_allowed_includes_pass(self):
        root = self.tree({
            "crawler/url/url.h": "#pragma once\n#include <string>\n",
            "crawler/extract/links.cc": '#include "crawler/extract/links.h"\n#include "crawler/url/url.h"\n',
            "crawler/pipeline/crawler.cc": '#include "crawler/url/url.h"\n  #  include "frontier/frontier.h"\n',
            "tests/support/web.h": '#include "crawler/pipeline/crawler.h"\n',
            "tests/crawler/url/url_test.cc": '#include "crawler/url/url.h"\n#include "tests/support/web.h"\n',
            "bench/links_bench.cc": '#include "tests/support/web.h"\n#include "frontier/frontier.h"\n',
        })
        self.assertEqual(check_layers.check(root), [])
        self.assertEqual(check_layers.main(["check_layers.py", root]), 0)

    def test_include_of_a_room_above_fails_with_file_line_and_rule(self):
        root = self.tree({"frontier/frontier.cc": '#include "frontier/frontier.h"\n\n#include "crawler/url/url.h"\n'})
        errors = check_layers.check(root)
        self.assertEqual(len(errors), 1)
        self.assertTrue(errors[0].startswith('frontier/frontier.cc:3: frontier may not include "crawler/url/url.h"'),
                        errors[0])
        self.assertIn("frontier may depend on base", errors[0])
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(check_layers.main(["check_layers.py", root]), 1)

    def test_sideways_and_upward_includes_fail(self):
        root = self.tree({
            "seenfilter/a.h": '#include "frontier/frontier.h"\n',
            "crawler/fetch/f.cc": '#include "crawler/extract/links.h"\n',
            "crawler/robots/r.cc": '#include "config/config.h"\n',
            "config/c.cc": '#include "tests/support/web.h"\n',
            "crawler/url/u.cc": '#include "bench/seenfilter_url_keys.h"\n',
        })
        self.assertEqual(sorted(e.split(":")[0] for e in check_layers.check(root)),
                         ["config/c.cc", "crawler/fetch/f.cc", "crawler/robots/r.cc", "crawler/url/u.cc",
                          "seenfilter/a.h"])

    def test_recrawl_schedule_depends_on_no_crawling_room_and_pipeline_may_use_it(self):
        root = self.tree({
            "crawler/recrawl/schedule.cc": '#include "crawler/recrawl/schedule.h"\n#include "crawler/fetch/fetcher.h"\n',
            "crawler/pipeline/p.cc": '#include "crawler/recrawl/schedule.h"\n',
        }, CMAKE + "bloomcrawl_library(recrawl crawler/recrawl)\nbloomcrawl_library(pipeline crawler/pipeline recrawl)\n")
        errors = check_layers.check(root)
        self.assertEqual(len(errors), 1, errors)
        self.assertTrue(errors[0].startswith('crawler/recrawl/schedule.cc:2: recrawl may not include "crawler/fetch/fetcher.h"'),
                        errors[0])

    def test_tests_may_not_be_included_by_support_or_bench(self):
        root = self.tree({
            "tests/support/web.cc": '#include "tests/seenfilter/url_keys.h"\n',
            "bench/b.cc": '#include "tests/seenfilter/url_keys.h"\n',
        })
        self.assertEqual(len(check_layers.check(root)), 2)

    def test_unknown_header_and_stray_file_fail(self):
        root = self.tree({
            "crawler/stray.cc": "int x;\n",
            "crawler/url/u.cc": '#include "u.h"\n',
        })
        errors = check_layers.check(root)
        self.assertEqual(len(errors), 2, errors)
        self.assertTrue(any(e.startswith("crawler/stray.cc:1: file is in no room") for e in errors))
        self.assertTrue(any(e.startswith('crawler/url/u.cc:1: "u.h" is in no room') for e in errors))

    def test_cmake_link_to_a_room_not_allowed_fails(self):
        root = self.tree({}, CMAKE + "bloomcrawl_library(url2 crawler/url2)\nbloomcrawl_library(config config url)\n")
        self.assertEqual(check_layers.check(root),
                         ["CMakeLists.txt:8: config links url, which it may not depend on"])

    def test_included_room_must_be_linked_directly_or_through_a_link(self):
        root = self.tree({
            "crawler/pipeline/p.cc": '#include "crawler/url/url.h"\n',  # reached through extract
            "crawler/extract/e.cc": '#include "crawler/url/url.h"\n',
            "crawler/persist/j.cc": '\n#include "seenfilter/seen_filter.h"\n',
        }, CMAKE + "bloomcrawl_library(persist crawler/persist frontier)\n")
        self.assertEqual(check_layers.check(root), [
            "crawler/persist/j.cc:2: persist includes seenfilter but CMakeLists.txt:7 does not link it"])

    def test_room_without_library_fails_when_it_includes_another(self):
        root = self.tree({"crawler/output/w.cc": '#include "crawler/fetch/fetcher.h"\n'})
        self.assertEqual(check_layers.check(root),
                         ["CMakeLists.txt:1: output includes other rooms but has no library"])

    def test_room_with_its_own_build_file_must_compile_what_it_includes(self):
        source = {"python/src/m.cc": '#include "seenfilter/seen_filter.h"\n#include "base/coding.h"\n'}
        root = self.tree({**source, "python/setup.py": 'ROOMS = ["seenfilter", "base"]\n'})
        self.assertEqual(check_layers.check(root), [])
        root = self.tree({**source, "python/setup.py": 'x = 1\nROOMS = ["seenfilter", "frontier"]\n'})
        self.assertEqual(check_layers.check(root), [
            "python/setup.py:2: python compiles frontier, which it may not depend on",
            "python/src/m.cc:2: python includes base but python/setup.py:2 does not compile it"])


if __name__ == "__main__":
    unittest.main()
