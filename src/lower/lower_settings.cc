// @model metadata and the @training / @inference settings (LANGUAGE.md §7).
#include "lower/lower_internal.h"

namespace shrew::lower::internal {
namespace {

// §7: ints in decimal, floats shortest round-trip, booleans true/false,
// strings kept; lists, dictionaries and null as their source text.
std::string MetadataText(const ast::Expr& e, std::string_view source_text) {
  if (const auto* i = e.As<ast::IntLiteral>()) return std::to_string(i->value);
  if (const auto* f = e.As<ast::FloatLiteral>()) return ir::FormatDouble(f->value);
  if (const auto* s = e.As<ast::StringLiteral>()) return s->value;
  if (const auto* b = e.As<ast::BoolLiteral>()) return b->value ? "true" : "false";
  return std::string(source_text);
}

bool IsInt(const ir::ConfigValue& v) { return v.kind == ir::ConfigValue::Kind::kInt; }
bool IsString(const ir::ConfigValue& v) { return v.kind == ir::ConfigValue::Kind::kString; }

}  // namespace

void Lowerer::LowerMetadata(const ast::Program& tree, ir::Program* out) {
  for (const ast::ModelBlock* m : tree.All<ast::ModelBlock>()) {
    for (const ast::Field& f : m->fields) {
      if (f.value == nullptr) continue;
      out->metadata[f.key.name] = MetadataText(*f.value, Text(f.value->span));
    }
  }
}

bool Lowerer::LowerSettingsMap(const std::vector<ast::Field>& fields, ir::SettingsMap* out) {
  for (const ast::Field& f : fields) {
    if (f.value == nullptr) continue;
    std::optional<ir::ConfigValue> v = EvalConfigExpr(*f.value, EvalContext(), diags_);
    if (!v) return false;
    (*out)[f.key.name] = std::move(*v);
  }
  return true;
}

bool Lowerer::LowerTraining(const ast::TrainingBlock& block, diag::Span span, ir::Program* out) {
  ir::TrainingSettings t;
  t.span = span;
  for (const ast::Setting& s : block.settings) {
    const std::string& key = s.key.name;
    if (s.kind == ast::Setting::Kind::Name) {
      if (key == "model") {
        t.model = s.name.name;
        t.model_span = s.name.span;
      } else if (key == "loss") {
        t.loss = s.name.name;
      }
      continue;
    }
    // Unknown fields are ignored (LANGUAGE.md §7): not evaluated either, so
    // `notes: 1 / 0;` is no error.
    const bool known = s.kind == ast::Setting::Kind::Fields
                           ? key == "optimizer" || key == "lr_schedule" || key == "grad_clip"
                           : key == "precision" || key == "epochs" || key == "batch_size" || key == "accumulation_steps";
    if (!known) continue;
    if (s.kind == ast::Setting::Kind::Fields) {
      ir::SettingsMap fields;
      if (!LowerSettingsMap(s.fields, &fields)) return false;
      // `type` selects the kind; the other keys are kept as settings.
      std::optional<std::string> type;
      if (auto it = fields.find("type"); it != fields.end()) {
        if (IsString(it->second)) type = it->second.s;
        fields.erase(it);
      }
      if (key == "optimizer") {
        if (type) t.optimizer_type = *type;
        // Synonyms: in source order, the last number wins, as for a key
        // written twice (a value of the wrong kind is ignored).
        for (const ast::Field& f : s.fields) {
          if (f.key.name != "lr" && f.key.name != "learning_rate") continue;
          auto it = fields.find(f.key.name);
          if (it == fields.end() || !it->second.is_number()) continue;
          t.lr = it->second.kind == ir::ConfigValue::Kind::kInt ? static_cast<double>(it->second.i) : it->second.f;
        }
        fields.erase("lr");
        fields.erase("learning_rate");
        t.optimizer_extra = std::move(fields);
      } else if (key == "lr_schedule") {
        t.lr_schedule_kind = type ? *type : "constant";
        t.lr_schedule = std::move(fields);
      } else if (key == "grad_clip") {
        t.grad_clip_kind = type ? *type : "none";
        t.grad_clip = std::move(fields);
      }
      continue;
    }
    if (s.value == nullptr) continue;
    std::optional<ir::ConfigValue> v = EvalConfigExpr(*s.value, EvalContext(), diags_);
    if (!v) return false;
    // Values of the wrong kind are ignored: the default stays (§7).
    if (key == "precision" && IsString(*v)) t.precision = v->s;
    if (key == "epochs" && IsInt(*v)) t.epochs = v->i;
    if (key == "batch_size" && IsInt(*v)) t.batch_size = v->i;
    if (key == "accumulation_steps" && IsInt(*v)) t.accumulation_steps = v->i;
  }
  out->training = std::move(t);
  return true;
}

bool Lowerer::LowerInference(const ast::InferenceBlock& block, diag::Span span,
                             ir::Program* out) {
  ir::InferenceSettings inf;
  inf.span = span;
  for (const ast::Setting& s : block.settings) {
    const std::string& key = s.key.name;
    if (s.kind == ast::Setting::Kind::Name && key == "model") {
      inf.model = s.name.name;
      inf.model_span = s.name.span;
    } else if (s.kind == ast::Setting::Kind::Fields && key == "quantization") {
      if (!LowerSettingsMap(s.fields, &inf.quantization)) return false;
    } else if (s.kind == ast::Setting::Kind::Fields && key == "generation") {
      if (!LowerSettingsMap(s.fields, &inf.generation)) return false;
    }
    // `optimizations` and other fields are parsed and ignored (§7).
  }
  out->inference = std::move(inf);
  return true;
}

}  // namespace shrew::lower::internal
