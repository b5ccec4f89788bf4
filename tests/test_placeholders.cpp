#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "decode/alignment_output.h"
#include "decode/placeholders.h"

using namespace nmt;
using Strings = std::vector<std::string>;

TEST_CASE("find_placeholders: printf, Qt, Python, braces, markup, entities and URLs, in order") {
    CHECK(find_placeholders("Copying %s to %s (%d%% done)") == Strings{"%s", "%s", "%d", "%%"});
    CHECK(find_placeholders("%1$s of %2$lu, %-10s %.2f %5d %ld") ==
          Strings{"%1$s", "%2$lu", "%-10s", "%.2f", "%5d", "%ld"});
    CHECK(find_placeholders("Page %1 of %2") == Strings{"%1", "%2"});
    CHECK(find_placeholders("%(count)d files in %(dir)s") == Strings{"%(count)d", "%(dir)s"});
    CHECK(find_placeholders("Hello {name}, {0} and {} in ${HOME}") == Strings{"{name}", "{0}", "{}", "${HOME}"});
    CHECK(find_placeholders("<b>Warning:</b> see <a href=\"x.html\">this</a><br/>") ==
          Strings{"<b>", "</b>", "<a href=\"x.html\">", "</a>", "<br/>"});
    CHECK(find_placeholders("Tom &amp; Jerry &#169;") == Strings{"&amp;", "&#169;"});
    CHECK(find_placeholders("See https://www.debian.org/doc/. Or http://x.org/a?b=1).") ==
          Strings{"https://www.debian.org/doc/", "http://x.org/a?b=1"});
}

TEST_CASE("find_placeholders: prose is not a placeholder") {
    CHECK(find_placeholders("Where is the train station?").empty());
    CHECK(find_placeholders("50 % of the files").empty());  // a percentage, not "% o"
    CHECK(find_placeholders("Usage: cmd <file-name> [options]").empty());  // a word to translate
    CHECK(find_placeholders("{script-only-if-no-other-script}").empty());
    CHECK(find_placeholders("a < b and c > d, R&D, 100$ or 5%").empty());
    CHECK(find_placeholders("").empty());
}

TEST_CASE("restore_placeholders: a translation that holds them, in any order, is unchanged") {
    CHECK(restore_placeholders("Copy %s to %d", "Copier %d vers %s") == "Copier %d vers %s");
    CHECK(restore_placeholders("No placeholders.", "Pas de  marqueurs.") == "Pas de  marqueurs.");
    CHECK(restore_placeholders("<b>Bold</b>", "<b>Gras</b>") == "<b>Gras</b>");
}

TEST_CASE("restore_placeholders: a garbled copy is replaced by the source's, an invented one removed") {
    CHECK(restore_placeholders("Hello {name}!", "Bonjour {nom} !") == "Bonjour {name} !");
    CHECK(restore_placeholders("File %s not found", "Fichier %d introuvable") == "Fichier %s introuvable");
    CHECK(restore_placeholders("Delete %1$s?", "Supprimer %1$d ?") == "Supprimer %1$s ?");
    CHECK(restore_placeholders("Done.", "Fait %s.") == "Fait .");
    CHECK(restore_placeholders("Open %s", "Ouvrir %s %s") == "Ouvrir %s");
}

TEST_CASE("restore_placeholders: a dropped one goes before the word that attended to it") {
    // Source words: "Delete" "%s" "now" "</s>"; target: "Supprimer" "maintenant" "</s>".
    WordAttention words;
    words.source = {{"Delete", 0, 1}, {"%s", 1, 2}, {"now", 3, 1}, {"</s>", 4, 1, true}};
    words.target = {{"Supprimer", 0, 1}, {"maintenant", 1, 1}, {"</s>", 2, 1, true}};
    words.weights = {{0.8f, 0.1f, 0.05f, 0.05f}, {0.05f, 0.35f, 0.5f, 0.1f}, {0.1f, 0.1f, 0.1f, 0.7f}};
    CHECK(restore_placeholders("Delete %s now", "Supprimer maintenant", &words) == "Supprimer %s maintenant");
    words.weights[0][1] = 0.9f;  // now "Supprimer" attended most to "%s"
    CHECK(restore_placeholders("Delete %s now", "Supprimer maintenant", &words) == "%s Supprimer maintenant");
}

TEST_CASE("restore_placeholders: without usable attention, at the end, or at the start when the source starts so") {
    CHECK(restore_placeholders("Delete %s now", "Supprimer maintenant") == "Supprimer maintenant %s");
    CHECK(restore_placeholders("%s files deleted", "fichiers supprimés") == "%s fichiers supprimés");
    WordAttention mismatched;  // attention over other words than the translation's
    mismatched.target = {{"a", 0, 1}, {"</s>", 1, 1, true}};
    mismatched.weights = {{1.0f}, {1.0f}};
    CHECK(restore_placeholders("Delete %s now", "Supprimer maintenant", &mismatched) == "Supprimer maintenant %s");
    CHECK(restore_placeholders("<b>%s</b>", "") == "<b> %s </b>");
}

TEST_CASE("restore_placeholders: the result always holds exactly the source's placeholders") {
    const Strings sources = {"%s: %d of %d {name} <i>x</i> http://a.b/c", "%1 %2 %3", "{a}{b}{a}", "&amp;%%"};
    const Strings translations = {"", "rien", "%d %d %d %d", "{b} {c} <i>", "%3 %1", "http://a.b/d %2 %2 %2"};
    for (const auto& s : sources)
        for (const auto& t : translations) {
            auto wanted = find_placeholders(s);
            auto got = find_placeholders(restore_placeholders(s, t));
            std::sort(wanted.begin(), wanted.end());
            std::sort(got.begin(), got.end());
            CHECK_MESSAGE(got == wanted, s << " | " << t);
        }
}

TEST_CASE("restore_placeholders: a repair that runs into its neighbours is redone, and the source is the last resort") {
    // Found by fuzzing: "<b>" and "{nom}" replaced in place by the URL and
    // "&amp;" made "https://example.com/a.html&amp;", one longer URL.
    const std::string source = "Click <b>{name}</b> to open https://example.com/a.html &amp; more.";
    const std::string repaired = restore_placeholders(source, "Cliquez sur <b>{nom}</b>");
    CAPTURE(repaired);
    std::vector<std::string> wanted = find_placeholders(source), got = find_placeholders(repaired);
    std::sort(wanted.begin(), wanted.end());
    std::sort(got.begin(), got.end());
    CHECK(got == wanted);
    CHECK(repaired.find("Cliquez sur") != std::string::npos);

    // Half a tag in the translation closes on any placeholder put after it
    // ("<b y {>" is a tag): only the untranslated source holds "{>}" alone.
    CHECK(restore_placeholders("x {>}", "<b y") == "x {>}");
}

TEST_CASE("find_placeholders: e-mail addresses and host names") {
    CHECK(find_placeholders("Write to john.doe@example.org, or support@company.com.") ==
          Strings{"john.doe@example.org", "support@company.com"});
    CHECK(find_placeholders("Visit www.example.com or www2.lists.debian.org today.") ==
          Strings{"www.example.com", "www2.lists.debian.org"});
    CHECK(find_placeholders("The server example.org (and ftp.debian.de) is down.") ==
          Strings{"example.org", "ftp.debian.de"});
    CHECK(find_placeholders("Mail anna_b+news@mail.example.co.uk") == Strings{"anna_b+news@mail.example.co.uk"});
    // Not addresses: abbreviations, file names, a lone @, a domain inside a longer word.
    CHECK(find_placeholders("e.g. i.e. readme.txt main.cpp Mr. Smith.").empty());
    CHECK(find_placeholders("meet @ noon, user@ and @host").empty());
    CHECK(find_placeholders("example.comet and example.org-like").empty());
}

TEST_CASE("restore_placeholders: a translated address is put back where its pieces were") {
    // "Write to john.doe@example.org for help." came back with the address in
    // two pieces, both looking at its source word.
    WordAttention words;
    words.source = {{"Write", 0, 1}, {"to", 1, 1}, {"john.doe@example.org", 2, 5}, {"for", 7, 1}, {"help.", 8, 2},
                    {"</s>", 10, 1, true}};
    words.target = {{"Écrivez", 0, 1}, {"à", 1, 1},      {"john.doe@", 2, 3}, {"exemples.org", 5, 3},
                    {"pour", 8, 1},    {"aider.", 9, 2}, {"</s>", 11, 1, true}};
    words.weights = {{0.9f, 0.02f, 0.02f, 0.02f, 0.02f, 0.02f}, {0.02f, 0.9f, 0.02f, 0.02f, 0.02f, 0.02f},
                     {0.02f, 0.02f, 0.9f, 0.02f, 0.02f, 0.02f}, {0.02f, 0.02f, 0.8f, 0.1f, 0.04f, 0.02f},
                     {0.02f, 0.02f, 0.02f, 0.9f, 0.02f, 0.02f}, {0.02f, 0.02f, 0.02f, 0.02f, 0.9f, 0.02f},
                     {0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.5f}};
    CHECK(restore_placeholders("Write to john.doe@example.org for help.", "Écrivez à john.doe@ exemples.org pour aider.",
                               &words) == "Écrivez à john.doe@example.org pour aider.");
    // A word translated from the address's word but holding none of it stays.
    CHECK(restore_placeholders("Contact support@company.com now", "Contactez contact@company.com maintenant") ==
          "Contactez support@company.com maintenant");
    CHECK(restore_placeholders("Visit www.example.com today.", "Visitez www.exemple.com aujourd'hui.") ==
          "Visitez www.example.com aujourd'hui.");
}
