// Escaping for the HTML report: every string from a model, a store or a user goes through one of
// these before it reaches the page.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ig {

// Text and attribute values: & < > " ' become character references.
std::string html_escape(std::string_view text);

// JSON for a <script type="application/json"> element: '<', '>' and '&' are written as \u003c,
// \u003e and \u0026 (equal JSON), so no "</script", "<!--" or "<script" can appear in the page.
// Invalid UTF-8 is replaced, never thrown on.
std::string json_for_script(const nlohmann::json& value);

}  // namespace ig
