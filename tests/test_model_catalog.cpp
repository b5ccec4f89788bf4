#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "model/model_catalog.h"

using namespace nmt;

namespace {

std::vector<InstalledModel> installed(const std::vector<std::string>& pairs) {
    std::vector<InstalledModel> models;
    for (const auto& name : pairs) {  // "en-fr" or "en-fr.captions"
        const std::string pair = name.substr(0, name.find('.'));
        const std::string domain = name.find('.') == std::string::npos ? "" : name.substr(name.find('.') + 1);
        models.push_back({"/models/" + name + ".nmt", pair.substr(0, pair.find('-')), pair.substr(pair.find('-') + 1),
                          domain});
    }
    return models;
}

std::string error_of(const std::vector<InstalledModel>& models, const std::string& from, const std::string& to,
                     const std::string& domain = "") {
    try {
        choose_model(models, from, to, domain);
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
    CHECK(several.find("`from`") != std::string::npos);
    const std::string none = error_of(installed({"en-de", "en-fr"}), "", "en");
    CHECK(none.find("no installed model for ->en (installed: en-de en-fr)") != std::string::npos);
}

TEST_CASE("choose_model: a pair not installed is an error naming what is") {
    CHECK(error_of(installed({"en-de", "en-fr"}), "", "xx").find("no installed model for en->xx (installed: en-de en-fr)") !=
          std::string::npos);
    CHECK(error_of({}, "", "").find("(no models installed)") != std::string::npos);
}

TEST_CASE("choose_model: the general model by default, --domain picks a domain's model") {
    const auto models = installed({"en-de", "en-de.captions", "en-fr.captions", "en-fr", "fr-en.captions"});
    CHECK(choose_model(models, "", "") == "/models/en-fr.nmt");
    CHECK(choose_model(models, "", "", "captions") == "/models/en-fr.captions.nmt");
    CHECK(choose_model(models, "en", "de", "captions") == "/models/en-de.captions.nmt");
    CHECK(choose_model(models, "", "de") == "/models/en-de.nmt");
    // A pair with only a domain's model: that model serves it without --domain.
    CHECK(choose_model(models, "fr", "") == "/models/fr-en.captions.nmt");
    CHECK(choose_model(models, "", "en") == "/models/fr-en.captions.nmt");
    CHECK(error_of(models, "", "", "news").find("no installed model for en->fr in domain news (installed:") !=
          std::string::npos);
    CHECK(error_of(models, "fr", "", "general").find("in domain general") != std::string::npos);
}

TEST_CASE("choose_model: several domain models and no general one need --domain") {
    const std::string several = error_of(installed({"en-fr.captions", "en-fr.news"}), "", "");
    CHECK(several.find("no general model for en-fr (installed: en-fr.captions en-fr.news)") != std::string::npos);
    CHECK(several.find("`domain`") != std::string::npos);
}

TEST_CASE("InstalledModel::name: the pair, and the domain after a dot") {
    CHECK(InstalledModel{"/m/en-fr.nmt", "en", "fr", ""}.name() == "en-fr");
    CHECK(InstalledModel{"/m/en-fr.captions.nmt", "en", "fr", "captions"}.name() == "en-fr.captions");
}

TEST_CASE("choose_model: --from alone takes the one language its installed models translate into") {
    CHECK(choose_model(installed({"de-fr", "en-fr"}), "de", "") == "/models/de-fr.nmt");  // no de-en: de-fr
    CHECK(choose_model(installed({"de-en", "de-fr"}), "de", "") == "/models/de-en.nmt");  // the usual default first
    CHECK(error_of(installed({"de-fr", "de-it"}), "de", "").find("no installed model for de->en") == 0);
}

TEST_CASE("--from auto: English is the default target where models translate into it, else the only target") {
    CHECK(auto_target_language(installed({"en-fr", "fr-en", "de-en"}), "") == "en");
    CHECK(auto_target_language(installed({"en-fr", "de-fr"}), "") == "fr");
    CHECK(auto_target_language(installed({"en-fr", "fr-en.captions"}), "captions") == "en");
    std::string message;
    try {
        auto_target_language(installed({"en-fr", "en-de"}), "");
    } catch (const Error& e) {
        message = e.what();
    }
    CHECK(message == "--from auto needs --to: the installed models translate into de, fr");
    CHECK_THROWS_AS(auto_target_language({}, ""), Error);
}

TEST_CASE("--from auto: detected among every language of the domain's models, and the target") {
    const auto models = installed({"en-fr", "fr-en", "de-en", "es-it.captions"});
    CHECK(model_languages(models, "", "en") == std::vector<std::string>{"de", "en", "fr"});
    CHECK(model_languages(models, "captions", "pt") == std::vector<std::string>{"es", "it", "pt"});
}
