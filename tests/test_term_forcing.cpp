#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "decode/term_forcing.h"

using namespace nmt;

namespace {

std::vector<std::string> split_words(const std::string& text) {
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

// Word attention over the space-separated words of `source` and
// `translation` (each with "</s>"), in which target word t looks mostly at
// source word looks_at[t] (-1: at "</s>", as a word the model made up).
WordAttention attention_from_links(const std::string& source, const std::string& translation,
                                   const std::vector<int>& looks_at) {
    WordAttention words;
    int piece = 0;
    for (const auto& w : split_words(source)) words.source.push_back({w, piece++, 1});
    words.source.push_back({"</s>", piece, 1, true});
    piece = 0;
    for (const auto& w : split_words(translation)) words.target.push_back({w, piece++, 1});
    words.target.push_back({"</s>", piece, 1, true});
    const size_t columns = words.source.size();
    for (size_t t = 0; t < words.target.size(); ++t) {
        std::vector<float> row(columns, 0.2f / float(columns - 1));
        const int s = t < looks_at.size() && looks_at[t] >= 0 ? looks_at[t] : int(columns) - 1;
        row[size_t(s)] = 0.8f;
        words.weights.push_back(row);
    }
    return words;
}

Glossary terms(const std::string& text) { return Glossary::parse(text, "terms.tsv"); }

}  // namespace

TEST_CASE("force_terms: each term replaces the target words aligned to it") {
    const Glossary g = terms("car\tbagnole\nmoney\tfric\nhouse\tdemeure\nhard disk\tdisque dur\n");
    {
        const std::string source = "This car is easy to handle.";
        const std::string translation = "Cette voiture est facile à gérer.";
        const auto words = attention_from_links(source, translation, {0, 1, 2, 3, 4, 5});
        CHECK(force_terms(source, translation, g, &words) == "Cette bagnole est facile à gérer.");
    }
    {  // punctuation and an elided article stay around the term
        const std::string source = "The more money we have, the more we want.";
        const std::string translation = "Plus d'argent nous avons, plus nous voulons.";
        const auto words = attention_from_links(source, translation, {0, 2, 3, 4, 5, 7, 8});
        CHECK(force_terms(source, translation, g, &words) == "Plus d'fric nous avons, plus nous voulons.");
    }
    {  // a short word at the end of the aligned run stays ("de"), the term's word goes
        const std::string source = "Tom was having car trouble.";
        const std::string translation = "Tom a eu des ennuis de voiture.";
        const auto words = attention_from_links(source, translation, {0, 1, 2, 2, 4, 3, 3});
        CHECK(force_terms(source, translation, g, &words) == "Tom a eu des ennuis de bagnole.");
    }
    {  // a two-word term replaces a two-word translation, the article stays
        const std::string source = "The hard disk is full.";
        const std::string translation = "Le disque rigide est plein.";
        const auto words = attention_from_links(source, translation, {0, 1, 2, 3, 4});
        CHECK(force_terms(source, translation, g, &words) == "Le disque dur est plein.");
    }
    {  // the translation's first word keeps its capital
        const std::string translation = "Maison chère.";
        const auto words = attention_from_links("house prices", translation, {0, 1});
        CHECK(force_terms("house prices", translation, g, &words) == "Demeure chère.");
    }
}

TEST_CASE("force_terms: a translation that already holds the term is unchanged") {
    const Glossary g = terms("car\tvoiture\n");
    const std::string source = "This car is red.";
    const std::string translation = "Cette voiture est rouge.";
    const auto words = attention_from_links(source, translation, {0, 1, 2, 3});
    CHECK(force_terms(source, translation, g, &words) == translation);
    CHECK(force_terms("No term here.", "Pas de terme ici.", g, nullptr) == "Pas de terme ici.");
}

TEST_CASE("force_terms: each occurrence of a term is forced") {
    const Glossary g = terms("dog\ttoutou\n");
    const std::string source = "My dog likes your dog.";
    const std::string translation = "Mon chien aime ton chien.";
    const auto words = attention_from_links(source, translation, {0, 1, 2, 3, 4});
    CHECK(force_terms(source, translation, g, &words) == "Mon toutou aime ton toutou.");
}

TEST_CASE("force_terms: a term the model dropped goes before the word that attended to it most") {
    const Glossary g = terms("car\tbagnole\n");
    const std::string source = "The red car left.";
    const std::string translation = "Le rouge est parti.";
    // No target word looks at "car" most; "rouge" gives it the most weight.
    auto words = attention_from_links(source, translation, {0, 1, 3, 3});
    words.weights[1][2] = 0.5f;
    words.weights[1][1] = 0.6f;
    CHECK(force_terms(source, translation, g, &words) == "Le bagnole rouge est parti.");
}

TEST_CASE("force_terms: without attention, the copied source term is replaced, else the term is added at the end") {
    const Glossary g = terms("Firefox\tFirefox ESR\tcase-sensitive\ncar\tbagnole\n");
    CHECK(force_terms("Start Firefox now.", "Démarrez Firefox maintenant.", g, nullptr) ==
          "Démarrez Firefox ESR maintenant.");
    CHECK(force_terms("The car is red.", "La voiture est rouge.", g, nullptr) == "La voiture est rouge. bagnole");
    // Attention that does not describe these words counts as none.
    const auto mismatched = attention_from_links("a b", "x", {0});
    CHECK(force_terms("The car is red.", "La voiture est rouge.", g, &mismatched) == "La voiture est rouge. bagnole");
}

TEST_CASE("force_terms: placeholders and do-not-translate spans are never edited") {
    const Glossary g = terms("car\tbagnole\nWidget\tGadget\n");
    const std::string source = "See www.car.com for the car.";
    const std::string translation = "Voir www.car.com pour la voiture.";
    const auto words = attention_from_links(source, translation, {0, 1, 2, 3, 4});
    CHECK(force_terms(source, translation, g, &words) == "Voir www.car.com pour la bagnole.");
    PlaceholderOptions keep;
    keep.keep_verbatim.emplace_back("Widget Pro");
    const std::string product = "Buy Widget Pro and a car.";
    const std::string product_translation = "Achetez Widget Pro et une voiture.";
    const auto product_words = attention_from_links(product, product_translation, {0, 1, 2, 3, 4, 5});
    CHECK(force_terms(product, product_translation, g, &product_words, keep) == "Achetez Widget Pro et une bagnole.");
    CHECK(force_terms(product, product_translation, g, &product_words) == "Achetez Gadget Pro et une bagnole.");
}

TEST_CASE("force_terms: a verbatim span the model translated word by word comes back whole") {
    PlaceholderOptions keep;
    keep.keep_verbatim.emplace_back("Sound Juicer");
    const std::string source = "Download Sound Juicer now.";
    const std::string translation = "Téléchargez le son de son maintenant.";
    const auto words = attention_from_links(source, translation, {0, 1, 1, 2, 2, 3});
    // All four words are short: none is the name's main word, so all go.
    CHECK(force_terms(source, translation, Glossary{}, &words, keep) == "Téléchargez Sound Juicer maintenant.");
    CHECK(force_terms(source, "Téléchargez Sound Juicer maintenant.", Glossary{}, &words, keep) ==
          "Téléchargez Sound Juicer maintenant.");
    CHECK(force_terms(source, translation, Glossary{}, nullptr, keep) ==
          "Téléchargez le son de son maintenant. Sound Juicer");
}
