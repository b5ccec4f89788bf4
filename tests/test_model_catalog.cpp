#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "error.h"
#include "model_catalog.h"

using namespace nmt;

namespace {

std::vector<InstalledModel> installed(const std::vector<std::string>& pairs) {
    std::vector<InstalledModel> models;
    for (const auto& pair : pairs)
        models.push_back({"/models/" + pair + ".nmt", pair.substr(0, pair.find('-')), pair.substr(pair.find('-') + 1)});
    return models;
}

std::string error_of(const std::vector<InstalledModel>& models, const std::string& from, const std::string& to) {
    try {
        choose_model(models, from, to);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("choose_model: English to French by default, --from/--to pick another pair") {
    const auto models = installed({"de-en", "en-de", "en-fr", "fr-en"});
    CHECK(choose_model(models, "", "") == "/models/en-fr.nmt");
    CHECK(choose_model(models, "", "de") == "/models/en-de.nmt");
    CHECK(choose_model(models, "en", "fr") == "/models/en-fr.nmt");
    CHECK(choose_model(models, "de", "") == "/models/de-en.nmt");  // not English: into English
    CHECK(choose_model(models, "fr", "en") == "/models/fr-en.nmt");
}

TEST_CASE("choose_model: --to en alone takes the one model into English, and asks for --from among several") {
    CHECK(choose_model(installed({"en-de", "de-en", "en-fr"}), "", "en") == "/models/de-en.nmt");
    const std::string several = error_of(installed({"de-en", "en-fr", "fr-en"}), "", "en");
    CHECK(several.find("(installed: de-en fr-en)") != std::string::npos);
    CHECK(several.find("--from") != std::string::npos);
    const std::string none = error_of(installed({"en-de", "en-fr"}), "", "en");
    CHECK(none.find("no installed model for ->en (installed: en-de en-fr)") != std::string::npos);
}

TEST_CASE("choose_model: a pair not installed is an error naming what is") {
    CHECK(error_of(installed({"en-de", "en-fr"}), "", "xx").find("no installed model for en->xx (installed: en-de en-fr)") !=
          std::string::npos);
    CHECK(error_of({}, "", "").find("(no models installed)") != std::string::npos);
}
