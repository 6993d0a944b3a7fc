// tilegemm-tune: times tilegemm's candidate configurations on this device per shape class, checks their results, and
// writes the winners to tuned.txt in the cache folder, where AutoConfig reads them (docs/tuning.md).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tilegemm/core.hpp>
#include <tilegemm/gemm/tuned_configs.hpp>
#include <vector>

#include "tune/builtin_table.hpp"
#include "tune/candidates.hpp"
#include "tune/measure.hpp"
#include "tune/options.hpp"
#include "tune/progress_bar.hpp"
#include "tune/progress_file.hpp"
#include "tune/shapes.hpp"

namespace tune {

using tilegemm::MathMode;
using tilegemm::detail::DeviceLimits;
using tilegemm::detail::KernelDescription;
using tilegemm::detail::ShapeClass;
using tilegemm::detail::TunedChoices;
using tilegemm::detail::TunedEntry;
using Clock = std::chrono::steady_clock;

// A candidate the device can run in this precision.
struct Runnable {
  std::string name;
  KernelDescription config;
  bool wrong = false;
};

// Why the device cannot run `c` in this precision and math mode, or "".
inline std::string unfit_reason(const KernelDescription& c, const DeviceLimits& device, std::size_t scalar_size,
                                MathMode math) {
  using namespace tilegemm::detail;
  // Where the family runs, in its own words (its can_implement): "tensor_cores multiplies on tensor cores ...".
  const Implementation found = implementation_on(c, device, scalar_size, math);
  if (!found.possible()) return c.family_name + found.why;
  if (static_cast<std::size_t>(c.threads()) > device.max_work_group_size) {
    return "work-groups larger than the device's " + std::to_string(device.max_work_group_size) + " work-items";
  }
  const std::size_t local_limit = local_memory_limit(c, device);
  if (c.local_memory_elements * scalar_size > local_limit) {
    return "more local memory than the device's " + std::to_string(local_limit / 1024) + " KiB";
  }
  if (!work_items_fit(device, c.threads_m, c.threads_n)) {
    return "work-group shape the device does not allow";
  }
  return "";
}

inline double tolerance_for(std::size_t scalar_size, MathMode math) {
  if (scalar_size == sizeof(double)) return 1e-11;
  // TF32 and half keep 11 significant bits, bfloat16 8.
  return math == MathMode::tf32 || math == MathMode::fp16 ? 5e-3 : math == MathMode::bf16 ? 4e-2 : 1e-5;
}

inline std::string ms_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", ms);
  return text;
}
inline double tflops(const ProductShape& s, double ms) { return 2.0 * s.m * s.n * s.k / (ms * 1e9); }

// The plan AutoConfig would make with `config` as the winner of every class (null: the built-in model's).
inline Plan plan_with(const KernelDescription* config, const ProductShape& s, const DeviceLimits& device,
                      std::size_t scalar_size, MathMode math) {
  TunedChoices choices;
  if (config) {
    for (auto& c : choices) c = {true, false, *config};
  }
  tilegemm::detail::GemmShape shape;
  shape.m = s.m;
  shape.n = s.n;
  shape.k = s.k;
  shape.a = {0, s.m, 0};
  shape.b = {0, s.k, 0};
  shape.c = {0, s.m, 0};
  return tilegemm::detail::plan_default(shape, device, scalar_size, math, config ? &choices : nullptr);
}

// Merges `entries` into the winners file: lines of the same device, driver, precision and class are replaced, those
// of others kept, damaged or stale ones dropped; written atomically.
inline void write_winners(const std::filesystem::path& path, const std::vector<TunedEntry>& entries) {
  using namespace tilegemm::detail;
  std::vector<TunedEntry> all;
  for (const TunedEntry& old : tuned_file::parse(tuned_file_text(path))) {
    const bool replaced = std::any_of(entries.begin(), entries.end(), [&](const TunedEntry& e) {
      return e.device == old.device && tuned_file::field_text(e.driver) == old.driver && e.precision == old.precision &&
             e.shape_class == old.shape_class;
    });
    if (!replaced) all.push_back(old);
  }
  all.insert(all.end(), entries.begin(), entries.end());
  const std::string text = tuned_file::text_of(all);
  const std::string problem = cache_file::write_atomically(path, std::vector<unsigned char>(text.begin(), text.end()));
  if (!problem.empty()) throw std::runtime_error("cannot write the winners: " + problem);
}

struct Tuner {
  const Options& options;
  CallContext call;
  std::filesystem::path file;  // the winners file; partial results go to tune-progress/ beside it
  Clock::time_point deadline;
  bool out_of_time = false;

  long long steps = 0;

  // Whether one more measurement may start (and counts it).
  bool time_left() {
    if (Clock::now() >= deadline || (options.max_steps >= 0 && steps >= options.max_steps)) out_of_time = true;
    if (!out_of_time) ++steps;
    return !out_of_time;
  }

  // "ok", or why `config` may not win: "wrong: ..." (a result off the reference, or a failure), "skipped: ...".
  template <class Scalar>
  std::string check(const KernelDescription& config, std::size_t size, MathMode math, double tolerance) {
    const TileShape& t = config.tile;
    std::string verdict = "ok";
    try {
      for (const ProductShape s :
           {ProductShape{2 * t.tsm + 5, 2 * t.tsn + 3, 8 * t.tsk + 7}, ProductShape{256, 256, 256}}) {
        const Operands<Scalar> operands(call, s, static_cast<unsigned>(s.m + s.k));
        const Plan plan = plan_with(&config, s, call.limits, size, math);
        if (plan.chosen != tilegemm::detail::Chosen::tuned) return "skipped: AutoConfig would not run it here";
        operands.poison(call);
        tilegemm::detail::execute(call, plan, operands.problem, {});
        const std::string wrong = operands.check(call, tolerance);
        if (!wrong.empty()) {
          verdict = "wrong: " + wrong;
          break;
        }
      }
    } catch (const std::exception& e) {
      verdict = std::string("wrong: failed: ") + e.what();
    }
    for (char& c : verdict) c = c == '\n' || c == '|' ? ' ' : c;
    return verdict.substr(0, 400);
  }

  template <class Scalar>
  std::vector<TunedEntry> tune(const std::vector<ShapeClass>& classes) {
    using namespace tilegemm::detail;
    const DeviceLimits& device = call.limits;
    const std::size_t size = sizeof(Scalar);
    const MathMode math = size == sizeof(double) ? MathMode::ieee : tilegemm::math_mode();
    const std::string precision = precision_name(size, math);
    std::vector<TunedEntry> entries;
    if (size == sizeof(double) && !device.fp64) {
      std::fprintf(stderr, "tilegemm-tune: double skipped: %s has no fp64\n", device.name.c_str());
      return entries;
    }
    const std::string identity =
        std::string(tilegemm::library_version) + "\n" + device_label(device) + "\n" + device.driver + "\n" + precision;
    ProgressFile progress(file.parent_path() / "tune-progress" / (tuned_file::hex16(fnv1a(identity)) + ".txt"),
                          options.restart);
    std::fprintf(stderr, "tilegemm-tune: %s on %s (driver %s)%s\n", precision.c_str(), device_label(device).c_str(),
                 device.driver.c_str(),
                 progress.size() ? (", continuing with " + std::to_string(progress.size()) +
                                    " results of an earlier "
                                    "run")
                                       .c_str()
                                 : "");
    const Clock::time_point started = Clock::now();

    // The candidates this device runs; the others noted, grouped by reason.
    std::vector<Runnable> runnable;
    std::map<std::string, std::vector<std::string>> skipped;
    std::set<std::string> asked(options.candidates.begin(), options.candidates.end());
    for (const Candidate& c : candidates) {
      std::string why;
      const std::optional<KernelDescription> config = describe_at_run_time(c.family, c.tile, &why);
      if (!config) throw std::logic_error("candidate refused: " + why);
      if (!options.candidates.empty() && asked.erase(config->name()) == 0 &&
          std::find(options.candidates.begin(), options.candidates.end(), config->name()) == options.candidates.end()) {
        continue;
      }
      const std::string reason = unfit_reason(*config, device, size, math);
      if (reason.empty()) {
        runnable.push_back({config->name(), *config});
      } else {
        skipped[reason].push_back(config->name());
      }
    }
    for (const std::string& name : asked)
      std::fprintf(stderr, "tilegemm-tune: no candidate named \"%s\"\n", name.c_str());
    for (const auto& [reason, names] : skipped) {
      std::fprintf(stderr, "tilegemm-tune: skipped %zu candidates (%s): %s%s\n", names.size(), reason.c_str(),
                   names.front().c_str(), names.size() > 1 ? ", ..." : "");
    }
    ProgressBar bar(deadline);
    const double tolerance = tolerance_for(size, math);

    // Every candidate's result against the reference on odd sizes (a tiled corner, strips, K off its slices) and on
    // whole tiles (which also builds the program the timings use), on several threads: most of this is compiling.
    bar.start(precision + " check", runnable.size());
    std::mutex lock;  // the progress file, the bar and stderr
    std::atomic<std::size_t> next{0};
    const auto check_all = [&] {
      for (std::size_t i = next++; i < runnable.size(); i = next++) {
        Runnable& r = runnable[i];
        const std::string key = "check " + r.name;
        const std::string* known = nullptr;
        {
          std::lock_guard<std::mutex> guard(lock);
          known = progress.find(key);
          if (!known && !time_left()) {
            r.wrong = true;  // not checked: never timed
            continue;
          }
        }
        std::string verdict = known ? *known : check<Scalar>(r.config, size, math, tolerance);
        std::lock_guard<std::mutex> guard(lock);
        if (!known) progress.put(key, verdict);
        if (verdict != "ok") {
          r.wrong = true;
          if (verdict.rfind("wrong", 0) == 0) {
            bar.end();
            std::fprintf(stderr, "tilegemm-tune: %s gives wrong results and is left out: %s\n", r.name.c_str(),
                         verdict.c_str() + 7);
          }
        }
        bar.step(r.name, !known);
      }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < std::clamp(std::thread::hardware_concurrency(), 1u, 8u); ++t)
      threads.emplace_back(check_all);
    check_all();
    for (std::thread& t : threads) t.join();
    bar.end();

    for (const ShapeClass c : classes) {
      if (out_of_time) break;
      const std::string class_name(shape_class_name(c));
      std::vector<ProductShape> timed, confirm;
      if (options.shapes.empty()) {
        const ClassShapes s = shapes_of(c);
        timed = s.timed;
        confirm = s.confirm;
      } else {
        for (const ProductShape& s : options.shapes) {
          if (shape_class(s.m, s.n, s.k) == c) timed.push_back(s);
        }
      }
      std::vector<Runnable*> contenders;
      for (Runnable& r : runnable) {
        if (!r.wrong && (!r.config.splits_k || c == ShapeClass::large_k)) contenders.push_back(&r);
      }
      // ms[shape][name], "model" for the built-in choice; absent: not measured (or not runnable).
      std::map<std::string, std::map<std::string, double>> ms;
      bool complete = true;
      const auto measure = [&](const ProductShape& s, const std::vector<Runnable*>& who, const std::string& stage) {
        bar.start(precision + " " + class_name + " " + stage + " " + s.text(), who.size() + 1);
        // The operands, made once for every contender; a shape the device cannot hold is left out with a note.
        std::optional<Operands<Scalar>> operands;
        bool measured_before = true;
        for (std::size_t i = 0; i <= who.size() && measured_before; ++i) {
          measured_before = progress.find("time " + s.text() + " " + (i == 0 ? "model" : who[i - 1]->name)) != nullptr;
        }
        if (!measured_before) {
          try {
            operands.emplace(call, s, static_cast<unsigned>(s.m * 31 + s.n * 17 + s.k));
          } catch (const std::exception& e) {
            std::fprintf(stderr, "tilegemm-tune: %s left out of %s: its operands do not fit (%s)\n", s.text().c_str(),
                         class_name.c_str(), e.what());
            return;
          }
        }
        double best = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i <= who.size(); ++i) {
          Runnable* r = i == 0 ? nullptr : who[i - 1];
          const std::string name = r ? r->name : "model";
          if (r && r->wrong) {
            bar.step(name, false);
            continue;
          }
          const std::string key = "time " + s.text() + " " + name;
          const std::string* known = progress.find(key);
          if (!known && !time_left()) {
            complete = false;
            break;
          }
          std::string value = known ? *known : "";
          if (!known) {
            try {
              const Plan plan = plan_with(r ? &r->config : nullptr, s, device, size, math);
              if (r && plan.chosen != Chosen::tuned) {
                value = "n/a";
              } else {
                operands->poison(call);
                const double t = time_plan(call, plan, *operands, 4 * best);
                const std::string wrong = operands->check(call, tolerance, 48);
                value = wrong.empty() ? ms_text(t) : "wrong: " + wrong;
              }
            } catch (const std::exception& e) {
              value = std::string("wrong: failed: ") + e.what();
            }
            for (char& ch : value) ch = ch == '\n' || ch == '|' ? ' ' : ch;
            progress.put(key, value.substr(0, 400));
          }
          if (value.rfind("wrong", 0) == 0) {
            bar.end();
            std::fprintf(stderr, "tilegemm-tune: %s gives wrong results and is left out: %s\n", name.c_str(),
                         value.c_str() + 7);
            if (r) r->wrong = true;
          } else if (value != "n/a") {
            const double t = std::atof(value.c_str());
            ms[s.text()][name] = t;
            if (t < best) {
              best = t;
              char text[96];
              std::snprintf(text, sizeof text, "%.3g TFLOP/s (%s)", tflops(s, t), name.c_str());
              bar.set_best(text);
            }
          }
          bar.step(name, !known);
        }
        bar.end();
      };
      for (const ProductShape& s : timed) {
        if (complete) measure(s, contenders, "timing");
      }
      if (!complete || timed.empty()) continue;
      // The geometric mean of the model's time over each contender's on `shapes` and the worst of those ratios;
      // false where a shape lacks either time.
      const auto score = [&](const std::string& name, const std::vector<ProductShape>& shapes, double& mean,
                             double& worst) {
        double log_sum = 0;
        int used = 0;
        worst = std::numeric_limits<double>::infinity();
        for (const ProductShape& s : shapes) {
          const auto& times = ms[s.text()];
          const auto mine = times.find(name), model = times.find("model");
          if (model == times.end()) continue;  // a shape left out (its operands did not fit)
          if (mine == times.end()) return false;
          const double ratio = model->second / mine->second;
          log_sum += std::log(ratio);
          worst = std::min(worst, ratio);
          ++used;
        }
        if (used == 0) return false;
        mean = std::exp(log_sum / used);
        return true;
      };
      std::vector<std::pair<double, Runnable*>> ranked;
      for (Runnable* r : contenders) {
        double mean = 0, worst = 0;
        if (!r->wrong && score(r->name, timed, mean, worst)) ranked.push_back({mean, r});
      }
      std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
      if (ranked.size() > 3) ranked.resize(3);
      std::vector<Runnable*> finalists;
      for (const auto& [mean, r] : ranked) finalists.push_back(r);
      for (const ProductShape& s : confirm) {
        if (complete) measure(s, finalists, "confirming");
      }
      if (!complete) continue;
      // The winner: the finalist fastest over every shape of the class (geometric mean), at least 2% faster than
      // the built-in choice and nowhere more than 1% slower (timing noise); else the built-in choice stays.
      std::vector<ProductShape> all = timed;
      all.insert(all.end(), confirm.begin(), confirm.end());
      TunedEntry entry;
      entry.device = device_label(device);
      entry.driver = device.driver;
      entry.precision = precision;
      entry.shape_class = c;
      entry.model = true;
      double best_mean = 1.02;
      for (Runnable* r : finalists) {
        double mean = 0, worst = 0;
        if (!r->wrong && score(r->name, all, mean, worst) && worst >= 0.99 && mean >= best_mean) {
          best_mean = mean;
          entry.model = false;
          entry.family = r->config.family;
          entry.tile = r->config.tile;
        }
      }
      const auto mean_tflops = [&](const std::string& name) {
        double log_sum = 0;
        int count = 0;
        for (const ProductShape& s : all) {
          const auto found = ms[s.text()].find(name);
          if (found == ms[s.text()].end()) continue;
          log_sum += std::log(tflops(s, found->second));
          ++count;
        }
        return count ? std::exp(log_sum / count) : 0.0;
      };
      entry.builtin_tflops = mean_tflops("model");
      const std::optional<KernelDescription> winner =
          entry.model ? std::nullopt : describe_at_run_time(entry.family, entry.tile);
      entry.tflops = winner ? mean_tflops(winner->name()) : entry.builtin_tflops;
      std::printf("%-8s %-14s %-40s %7.3g TFLOP/s, built-in %7.3g (%.2fx)\n", precision.c_str(), class_name.c_str(),
                  winner ? winner->name().c_str() : "built-in choice kept", entry.tflops, entry.builtin_tflops,
                  entry.builtin_tflops > 0 ? entry.tflops / entry.builtin_tflops : 0.0);
      std::fflush(stdout);
      write_winners(file, {entry});  // now, so that a run stopped later keeps this class's winner
      entries.push_back(entry);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    if (entries.size() == classes.size()) {
      progress.finished();
      std::fprintf(stderr, "tilegemm-tune: %s tuned in %.0f s\n", precision.c_str(), seconds);
    } else {
      std::fprintf(stderr,
                   "tilegemm-tune: %s stopped by the time budget after %.0f s with %zu of %zu classes done; run again "
                   "to continue (the partial results are kept)\n",
                   precision.c_str(), seconds, entries.size(), classes.size());
    }
    return entries;
  }
};

}  // namespace tune

int main(int argc, char** argv) {
  using namespace tune;
  try {
    const Options options = parse_options(argc, argv);
    if (options.help) {
      std::fputs(usage, stdout);
      return 0;
    }
    if (options.builtin) {
      std::fputs(builtin_table_text().c_str(), stdout);
      return 0;
    }
    if (options.list) {
      for (const Candidate& c : candidates) {
        std::printf("%s\n", tilegemm::detail::describe_at_run_time(c.family, c.tile)->name().c_str());
      }
      return 0;
    }
    const tilegemm::detail::CacheLocation where = tilegemm::detail::cache_location_from_environment();
    if (!where.enabled && options.file.empty()) {
      throw std::runtime_error("the winners are kept in tilegemm's cache folder, which is off here (" +
                               (where.problem.empty() ? std::string("TILEGEMM_CACHE=off") : where.problem) + ")");
    }
    const std::filesystem::path file = options.file.empty()
                                           ? where.directory / std::string(tilegemm::detail::tuned_file::name)
                                           : std::filesystem::path(options.file);
    Tuner tuner{options, CallContext::of(tilegemm::default_queue()), file,
                Clock::now() + std::chrono::milliseconds(static_cast<long long>(options.minutes * 60000))};
    std::vector<ShapeClass> classes = options.classes;
    for (const ProductShape& s : options.shapes) {
      const ShapeClass c = tilegemm::detail::shape_class(s.m, s.n, s.k);
      if (std::find(classes.begin(), classes.end(), c) == classes.end()) classes.push_back(c);
    }
    if (classes.empty()) {
      for (std::size_t c = 0; c < tilegemm::detail::shape_class_count; ++c)
        classes.push_back(static_cast<ShapeClass>(c));
    }
    std::vector<std::string> precisions = options.precisions;
    if (precisions.empty()) precisions = {"float", "double"};
    std::vector<TunedEntry> entries;
    for (const std::string& p : precisions) {
      const std::vector<TunedEntry> found = p == "double" ? tuner.tune<double>(classes) : tuner.tune<float>(classes);
      entries.insert(entries.end(), found.begin(), found.end());
    }
    if (!entries.empty()) {
      std::fprintf(stderr, "tilegemm-tune: %zu winners written to %s\n", entries.size(), file.string().c_str());
    }
    return tuner.out_of_time ? 3 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tilegemm-tune: %s\n", e.what());
    return 1;
  }
}
