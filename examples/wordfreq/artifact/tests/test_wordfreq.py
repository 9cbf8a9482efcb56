"""Unit tests of the identifier splitter and style classifier: python3 -m unittest -v"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from wordfreq import style, words  # noqa: E402


class StyleTest(unittest.TestCase):
    def test_styles(self):
        self.assertEqual(style("load_config"), "snake_case")
        self.assertEqual(style("loadConfig"), "camelCase")
        self.assertEqual(style("ConfigLoader"), "PascalCase")
        self.assertEqual(style("MAX_SIZE"), "UPPER_CASE")
        self.assertEqual(style("_private_name"), "snake_case")

    def test_words(self):
        self.assertEqual(words("parseHTTPRequest"), ["parse", "http", "request"])
        self.assertEqual(words("MAX_FILE_SIZE"), ["max", "file", "size"])
        self.assertEqual(words("__init__"), ["init"])


if __name__ == "__main__":
    unittest.main()
