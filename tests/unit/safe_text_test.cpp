// Safe text (netplay/base/safe_text.h): what passes as it is, what is escaped and how, the
// strict UTF-8 decoder's edge cases, and cuts on a character's boundary.
#include <catch2/catch.hpp>

#include <string>

#include "netplay/base/safe_text.h"

using framelock::cut_text;
using framelock::find_unsafe;
using framelock::safe_text;

TEST_CASE("safe text: printable text in any script passes as it is", "[unit][safe_text]") {
    for (const std::string text :
         {"alice", "", "a\\b \\x1b typed by hand", "Zoë", "日本語の名前", "مرحبا", "שלום",
          "👍🏽", "👩‍👧‍👦", "🇫🇷🇩🇪", "e\xcc\x81", "1️⃣",
          "\xf4\x8f\xbf\xbf" /* U+10FFFF */, "\xef\xbf\xbd" /* U+FFFD */, "tab-free  spaces",
          "\xe2\x80\x8c\xe2\x80\x8d" /* ZWNJ ZWJ */}) {
        INFO(text);
        CHECK_FALSE(find_unsafe(text).has_value());
        CHECK(safe_text(text) == text);
    }
}

TEST_CASE("safe text: controls, DEL, C1, separators, bidi and invisible characters are escaped",
          "[unit][safe_text]") {
    CHECK(safe_text("x\n[warn] forged: admin kicked\x1b]0;PWN\a") ==
          "x\\x0a[warn] forged: admin kicked\\x1b]0;PWN\\x07");
    CHECK(safe_text(std::string("nul\0here", 8)) == "nul\\x00here");
    CHECK(safe_text("\t\r\x7f") == "\\x09\\x0d\\x7f");
    CHECK(safe_text("\xc2\x85\xc2\x9b"
                    "31m") == "\\u0085\\u009b31m");  // NEL, CSI
    CHECK(safe_text("a\xe2\x80\xa8"
                    "b\xe2\x80\xa9") == "a\\u2028b\\u2029");
    // Bidi: overrides, embeddings, isolates and marks.
    CHECK(safe_text("\xe2\x80\xaegnp.exe") == "\\u202egnp.exe");
    CHECK(safe_text("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad") ==
          "\\u202a\\u202b\\u202c\\u202d");
    CHECK(safe_text("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9") ==
          "\\u2066\\u2067\\u2068\\u2069");
    CHECK(safe_text("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c") == "\\u200e\\u200f\\u061c");
    // Invisible: soft hyphen, zero-width space, word joiner, BOM, a Hangul filler, a tag.
    CHECK(safe_text("ad\xc2\xadmin") == "ad\\u00admin");
    CHECK(safe_text("ad\xe2\x80\x8bmin\xe2\x81\xa0\xef\xbb\xbf") == "ad\\u200bmin\\u2060\\ufeff");
    CHECK(safe_text("\xe3\x85\xa4") == "\\u3164");
    CHECK(safe_text("\xf3\xa0\x81\x81") == "\\U000e0041");
    const auto bad = find_unsafe("ok\xe2\x80\xae");
    REQUIRE(bad);
    CHECK(bad->offset == 2);
    CHECK(bad->what == "U+202E (a bidi control: it reorders the text after it)");
    CHECK(find_unsafe("x\x1b")->what == "U+001B (a control character)");
}

TEST_CASE("safe text: bytes that are not well-formed UTF-8 are escaped one by one",
          "[unit][safe_text]") {
    CHECK(safe_text("\xc0\x80") == "\\xc0\\x80");                    // overlong NUL
    CHECK(safe_text("\xc1\xbf") == "\\xc1\\xbf");                    // overlong
    CHECK(safe_text("\xe0\x80\xaf") == "\\xe0\\x80\\xaf");           // overlong '/'
    CHECK(safe_text("\xf0\x8f\xbf\xbf") == "\\xf0\\x8f\\xbf\\xbf");  // overlong U+FFFF
    CHECK(safe_text("\xed\xa0\x80") == "\\xed\\xa0\\x80");           // a surrogate, U+D800
    CHECK(safe_text("\xed\xbf\xbf") == "\\xed\\xbf\\xbf");           // U+DFFF
    CHECK(safe_text("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // U+110000
    CHECK(safe_text("\xf5\xff\xfe") == "\\xf5\\xff\\xfe");
    CHECK(safe_text("a\x80"
                    "b") == "a\\x80b");            // a lone continuation byte
    CHECK(safe_text("\xe6\x97") == "\\xe6\\x97");  // 日 cut short at the end
    CHECK(safe_text("\xe6\x97"
                    "x") == "\\xe6\\x97x");  // ... and in the middle
    CHECK(safe_text("\xc3\xa9\xc3") == "\xc3\xa9\\xc3");
    const auto bad = find_unsafe("ab\xed\xa0\x80");
    REQUIRE(bad);
    CHECK(bad->offset == 2);
    CHECK(bad->what == "the byte 0xed (not well-formed UTF-8)");
}

TEST_CASE("safe text: made safe twice is made safe once", "[unit][safe_text]") {
    for (const std::string text : {"x\n\x1b]0;PWN\a", "\xe2\x80\xae\xc0\x80\xc2\x9b",
                                   "a\\x0a literal", "\xf3\xa0\x81\x81"}) {
        const std::string once = safe_text(text);
        CHECK(safe_text(once) == once);
        CHECK_FALSE(find_unsafe(once).has_value());
        for (std::size_t max = 0; max <= once.size(); ++max) {
            INFO(max);
            CHECK(safe_text(text, max) == cut_text(once, max));
        }
    }
}

TEST_CASE("safe text: cuts fall on a character's boundary, never inside one or an escape",
          "[unit][safe_text]") {
    CHECK(safe_text("alice", 3) == "ali");
    CHECK(safe_text("a\xc3\xa9", 2) == "a");                            // never half of é
    CHECK(safe_text("\xe6\x97\xa5\xe6\x9c\xac", 5) == "\xe6\x97\xa5");  // 日本 to 5 bytes: 日
    CHECK(safe_text("\xf0\x9f\x91\x8d", 3).empty());                    // a 4-byte emoji, 3 bytes
    CHECK(safe_text("x\x1b\x1b", 7) == "x\\x1b");                       // whole escapes only
    CHECK(safe_text("\xe2\x80\xae", 5).empty());
    // A combining mark goes with its letter: "ae" + U+0301 to 3 bytes keeps "a".
    CHECK(safe_text("ae\xcc\x81", 3) == "a");
    CHECK(safe_text("ae\xcc\x81", 4) == "ae\xcc\x81");
    // A skin tone with its emoji, a joined family whole, a flag's two halves together.
    CHECK(safe_text("a\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd", 5) == "a");
    CHECK(safe_text("a\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7", 9) == "a");
    CHECK(safe_text("\xf0\x9f\x87\xab\xf0\x9f\x87\xb7\xf0\x9f\x87\xa9\xf0\x9f\x87\xaa", 12) ==
          "\xf0\x9f\x87\xab\xf0\x9f\x87\xb7");
    CHECK(safe_text("\xf0\x9f\x87\xab\xf0\x9f\x87\xb7\xf0\x9f\x87\xa9\xf0\x9f\x87\xaa", 16) ==
          "\xf0\x9f\x87\xab\xf0\x9f\x87\xb7\xf0\x9f\x87\xa9\xf0\x9f\x87\xaa");
    // One character longer than the limit (a letter under many marks) is cut at a code point.
    CHECK(safe_text("e\xcc\x81\xcc\x81\xcc\x81", 4) == "e\xcc\x81");
    // cut_text keeps the bytes (controls too) and cuts the same way.
    CHECK(cut_text("x\x1b\x1b", 2) == "x\x1b");
    CHECK(cut_text("a\xc3\xa9", 2) == "a");
    CHECK(cut_text("abc", 10) == "abc");
    CHECK(cut_text("x\\x1b", 4) == "x");  // an escape already written stays whole
}
