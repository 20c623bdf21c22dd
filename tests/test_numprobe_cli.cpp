// numprobe as a user runs it: hostile or empty input and failing outputs end with a clear
// message and a non-zero exit status, never with a pass or a silent success.
#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <iterator>
#include <sstream>
#include <regex>
#include <string>
#include <vector>

namespace {

struct Outcome {
  int status = -1;
  std::string output;  // stdout and stderr together (or stdout alone)
};

Outcome shell(const std::string& cmd) {
  Outcome r;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.output.append(buf, n);
  const int raw = pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return r;
}

Outcome numprobe(const std::string& args, bool with_stderr = true) {
  return shell(std::string(TCNUM_NUMPROBE) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null"));
}

// Per process: concurrent test runs (other build trees on the same machine) must not share files.
std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "tcnum_cli_" + std::to_string(::getpid()) + "_" + name;
}

std::string write_file(const std::string& name, const std::string& bytes) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

std::string write_gzip(const std::string& name, const std::string& bytes) {
  const std::string path = temp_path(name);
  gzFile gz = gzopen(path.c_str(), "wb");
  if (!bytes.empty()) gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(gz);
  return path;
}

const std::string kGood =
    "sm_90 mma.m16n8k8.f32.f16.f16.f32 3c003c00000000000000000000000000 3c004000000000000000000000000000 "
    "3f800000 40800000\n";

}  // namespace

TEST(ReplayCli, AFileWithNoCaseFails) {
  const std::string files[] = {write_file("empty.tcc", ""), write_file("comments.tcc", "# only\n# comments\n\n"),
                               "/dev/null", write_gzip("empty.tcc.gz", "")};
  for (const auto& f : files) {
    const auto r = numprobe("replay " + f);
    EXPECT_NE(r.status, 0) << f << "\n" << r.output;
    EXPECT_NE(r.output.find("no cases in " + f), std::string::npos) << r.output;
    EXPECT_EQ(numprobe("replay --allow-empty " + f).status, 0) << f;
  }
}

TEST(ReplayCli, AGoodCasePasses) {
  const auto r = numprobe("replay " + write_file("good.tcc", kGood));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("1 passed, 0 failed"), std::string::npos) << r.output;
}

// A library corpus is not a case corpus: replay says where its replay is, with exit status 2.
TEST(ReplayCli, ALibraryCorpusIsNamedAndSentToItsReplay) {
  const std::string f = std::string(TCNUM_SOURCE_DIR) + "/corpora/h100-libraries/mm_f32out.jsonl.gz";
  const auto r = numprobe("replay " + f);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("python3 -m tcnum.libraries replay"), std::string::npos) << r.output;
}

// Before: /dev/zero was read forever (one endless line of NULs).
TEST(ReplayCli, DevZeroEndsWithAnError) {
  const auto r = numprobe("replay /dev/zero");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("/dev/zero:1: malformed: NUL byte"), std::string::npos) << r.output;
}

namespace {

// Whether this numprobe has a subcommand (a build without MPFR lacks chain, fit, features, ...).
// Not `NAME --help`: for an unknown NAME that prints the top-level help and exits 0.
bool has_command(const std::string& name) {
  static const std::string help = numprobe("--help").output;
  return help.find("\n  " + name + " ") != std::string::npos;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const std::string kSmallChain = "chain --dtype fp16 --init low --max-len 2 --trials 2 --no-exact --quiet";

}  // namespace

// Before: "wrote /dev/full" and exit status 0.
TEST(OutputCli, AWriteErrorFailsWithTheReason) {
  if (!has_command("chain")) GTEST_SKIP() << "numprobe built without chain (no MPFR)";
  const auto r = numprobe(kSmallChain + " --out /dev/full");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cannot write '/dev/full': No space left on device"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("wrote"), std::string::npos) << r.output;
}

// Before: the existing file was truncated first, then `--k 7` failed: the data was lost.
TEST(OutputCli, AnExistingOutputIsKeptUnlessForcedAndAFailedRunLeavesItIntact) {
  if (!has_command("chain")) GTEST_SKIP() << "numprobe built without chain (no MPFR)";
  const std::string precious = write_file("precious.csv", "precious data\n");
  auto r = numprobe(kSmallChain + " --out " + precious);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("exists; give --force"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(precious), "precious data\n");

  r = numprobe(kSmallChain + " --k 7 --force --out " + precious);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_EQ(read_file(precious), "precious data\n");

  r = numprobe(kSmallChain + " --force --out " + precious);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_file(precious).rfind("dtype,init,instr", 0), 0u) << read_file(precious);
  std::remove(precious.c_str());
}

TEST(OutputCli, FitRefusesAnExistingOutputBeforeFitting) {
  if (!has_command("fit")) GTEST_SKIP() << "numprobe built without fit (no MPFR)";
  const std::string precious = write_file("precious.json", "{}\n");
  const auto r = numprobe("fit --backend emu --arch sm_80 --out " + precious);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("exists; give --force"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(precious), "{}\n");
  std::remove(precious.c_str());
}

// Before: `--trials 0` printed a table of 0.0 errors and exited 0; `--trials -1` ended with
// "numprobe: vector::reserve".
TEST(CountOptionsCli, ZeroAndNegativeCountsAreRejected) {
  if (!has_command("fit")) GTEST_SKIP() << "numprobe built without discover (no MPFR)";
  for (const char* bad : {"--dtype fp16 --op profile --trials 0", "--dtype fp16 --op profile --trials -1",
                          "chain --threads -1", "chain --k -8", "replay --max-errors -1 /dev/null"}) {
    const auto r = numprobe(bad);
    EXPECT_NE(r.status, 0) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("not in range"), std::string::npos) << bad << "\n" << r.output;
  }
}

namespace {

// Only a JSON document: first and last non-blank characters are its braces.
bool only_json(const std::string& out) {
  const auto first = out.find_first_not_of(" \n"), last = out.find_last_not_of(" \n");
  return first != std::string::npos && out[first] == '{' && out[last] == '}';
}

// --json owns stdout, in every command (the text report, if any, goes to stderr).
TEST(NumprobeOptions, JsonIsAloneOnStdout) {
  const std::string good = write_file("json.tcc", kGood);
  for (const std::string& args : std::vector<std::string>{"list --json", "list --arch sm_80 --json", "replay --json " + good}) {
    const auto r = numprobe(args, false);
    EXPECT_EQ(r.status, 0) << args;
    EXPECT_TRUE(only_json(r.output)) << args << ":\n" << r.output;
  }
  EXPECT_NE(numprobe("replay --json " + good, false).output.find("\"passed\": 1"), std::string::npos);
}

std::string project_version() {  // CMakeLists.txt's project(tcnum VERSION x.y.z): the one source
  std::ifstream in(std::string(TCNUM_SOURCE_DIR) + "/CMakeLists.txt");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::smatch m;
  return std::regex_search(text, m, std::regex(R"(project\(tcnum VERSION ([0-9.]+))")) ? m[1].str() : "(none)";
}

// --version names the build for a bug report, and every --json summary carries the same facts.
TEST(NumprobeOptions, VersionNamesTheBuild) {
  const auto v = numprobe("--version", false);
  EXPECT_EQ(v.status, 0) << v.output;
  EXPECT_EQ(v.output.rfind("numprobe " + project_version() + "\n", 0), 0u) << v.output;
  std::smatch id;
  ASSERT_TRUE(std::regex_search(v.output, id, std::regex("build id: +([0-9a-f]{16})\n"))) << v.output;
  for (const char* label : {"git revision: ", "compiler: ", "SIMD path: ", "CUDA: ", "MPFR layers: "})
    EXPECT_TRUE(std::regex_search(v.output, std::regex(std::string("\n") + label + " *[^ \n]+"))) << label << v.output;
  const std::string good = write_file("version.tcc", kGood);
  for (const std::string& args : std::vector<std::string>{"list --json", "replay --json " + good}) {
    const auto r = numprobe(args, false);
    EXPECT_NE(r.output.find("\"numprobe\": {"), std::string::npos) << args << ":\n" << r.output;
    EXPECT_NE(r.output.find("\"build_id\": \"" + id[1].str() + "\""), std::string::npos) << args << ":\n" << r.output;
    EXPECT_NE(r.output.find("\"version\": \"" + project_version() + "\""), std::string::npos) << args;
    EXPECT_NE(r.output.find("\"git_revision\""), std::string::npos) << args;
  }
}

// fuzz and fuzz merge follow the same rule; --devices is checked before any device is touched.
TEST(NumprobeOptions, FuzzJsonIsAloneOnStdoutAndDevicesAreChecked) {
  const std::string model = temp_path("fuzz_sm90.json"), out = temp_path("fuzz_json"), merged = temp_path("fuzz_merged");
  ASSERT_EQ(numprobe("list --arch sm_90 --print-model > " + model, false).status, 0);
  std::filesystem::remove_all(out);
  std::filesystem::remove_all(merged);
  const auto r = numprobe("fuzz --backend emu --device-model " + model +
                              " --instr mma.m16n8k16.f32.bf16.bf16.f32 --dist normal --cases 300 --seed 1 --json --out " + out,
                          false);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(only_json(r.output)) << r.output;
  EXPECT_NE(r.output.find("\"cases\": 300"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"numprobe\": {"), std::string::npos) << r.output;
  std::ifstream summary(out + "/summary.json");
  const std::string kept((std::istreambuf_iterator<char>(summary)), std::istreambuf_iterator<char>());
  EXPECT_NE(kept.find("\"git_revision\""), std::string::npos) << "summary.json's run names the build:\n" << kept;
  const auto m = numprobe("fuzz merge " + out + " --json --out " + merged, false);
  EXPECT_EQ(m.status, 0) << m.output;
  EXPECT_TRUE(only_json(m.output)) << m.output;
  const auto twice = numprobe("fuzz --devices 0,0 --cases 10 --seed 1 --out " + temp_path("fuzz_twice"));
  EXPECT_NE(twice.status, 0);
  EXPECT_NE(twice.output.find("given twice"), std::string::npos) << twice.output;
}

// One default architecture: sm_90, the validated one.
TEST(NumprobeOptions, DefaultArchitectureIsSm90) {
  EXPECT_EQ(numprobe("list", false).output, numprobe("list --arch sm_90", false).output);
  EXPECT_NE(numprobe("list", false).output, numprobe("list --arch sm_80", false).output);
}

// numprobe features and numprobe profile take their own ops only (where built: they need MPFR).
TEST(NumprobeOptions, SubcommandsRejectTheOtherKindOfOp) {
  if (!has_command("features")) GTEST_SKIP() << "numprobe built without the characterisation layer";
  const auto f = numprobe("features --op accumulate");
  EXPECT_NE(f.status, 0);
  EXPECT_NE(f.output.find("numprobe profile --op accumulate"), std::string::npos) << f.output;
  const auto p = numprobe("profile --op align");
  EXPECT_NE(p.status, 0);
  EXPECT_NE(p.output.find("numprobe features --op align"), std::string::npos) << p.output;
}

// Blackwell: the feature tests run on FP4 (the dense kind, no anomaly: exit status 0) and on a
// block-scaled kind given by name; fuzz runs a block-scaled kind against the stand-in device
// (its scales drawn by tcnum/fuzz/scales.hpp; no GPU probe runs them, so only --backend emu).
TEST(BlackwellCli, FeaturesRunOnFp4AndFuzzRunsBlockScaledKindsOnTheStandIn) {
  if (has_command("features")) {
    const auto f = numprobe("features --dtype e2m1 --arch sm_120 --op all");
    EXPECT_EQ(f.status, 0) << f.output;
    EXPECT_NE(f.output.find("kind::f8f6f4"), std::string::npos) << f.output;
    const auto s = numprobe("features --arch sm_120 --op scale --instr "
                            "mma.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3");
    EXPECT_EQ(s.status, 0) << s.output;
    EXPECT_NE(s.output.find("per group"), std::string::npos) << s.output;
  }
  const std::string model = write_file("sm120.json", numprobe("list --arch sm_120 --print-model", false).output);
  const auto z = numprobe("fuzz --backend emu --device-model " + model + " --arch sm_120 --cases 8 --out " +
                          temp_path("fuzz-scaled") + " --instr mma.m16n8k64.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0");
  EXPECT_EQ(z.status, 0) << z.output;
  EXPECT_NE(z.output.find("0 mismatches, 0 signatures"), std::string::npos) << z.output;
}

}  // namespace

namespace {

// numprobe record on a GPU played by the emulator (TCNUM_SIMULATED_DEVICE, tools/numprobe/
// simulated_device.hpp), after `shell_prefix` (e.g. a ulimit): the device faults of issue 14.
Outcome record(const std::string& device, const std::string& args, const std::string& shell_prefix = "") {
  return shell(shell_prefix + "TCNUM_SIMULATED_DEVICE=" + device + " " + TCNUM_NUMPROBE +
               " record --instr mma.m16n8k16.f32.f16.f16.f32 --cases 20 " + args + " 2>&1");
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

std::string gunzip(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  std::string out;
  char buf[4096];
  for (int n; gz && (n = gzread(gz, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  if (gz) gzclose(gz);
  return out;
}

// The case lines of a corpus (no comments): what a resumed run must reproduce exactly.
std::string case_lines(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    const std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos + 1);
    if (!line.empty() && line[0] != '#') out += line;
    pos = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

// No GPU: this build has no CUDA or this machine no GPU. A clear error, and no file at all.
TEST(RecordFaults, NoGpuIsAClearErrorAndCreatesNothing) {
  if (!has_command("record")) GTEST_SKIP() << "numprobe built without record (no MPFR)";
  const std::string out = temp_path("nogpu.tcc");
  std::remove(out.c_str());
  const auto r = numprobe("record --instr mma.m16n8k16.f32.f16.f16.f32 --cases 4 --out " + out);
  if (r.status == 0) GTEST_SKIP() << "a GPU is present";
  EXPECT_TRUE(r.output.find("without CUDA") != std::string::npos || r.output.find("no usable GPU") != std::string::npos)
      << r.output;
  EXPECT_FALSE(exists(out));
  EXPECT_FALSE(exists(out + ".partial"));
  EXPECT_EQ(r.status, 2) << r.output;
}

// Without a GPU (or without CUDA in the build), every command that wants one says what to do
// instead: the commands with a model backend name --backend emu; exit status 2.
TEST(RecordFaults, NoGpuSaysWhatRunsWithoutOne) {
  if (!has_command("features")) GTEST_SKIP() << "numprobe built without features (no MPFR)";
  const auto features = numprobe("features --dtype bf16 --op align --backend device");
  if (features.status == 0) GTEST_SKIP() << "a GPU is present";
  EXPECT_EQ(features.status, 2) << features.output;
  EXPECT_NE(features.output.find("--backend emu"), std::string::npos) << features.output;
  const auto fuzz = numprobe("fuzz --backend device --cases 16 --out " + temp_path("nogpu-fuzz"));
  EXPECT_EQ(fuzz.status, 2) << fuzz.output;
  EXPECT_NE(fuzz.output.find("--backend emu"), std::string::npos) << fuzz.output;
  const bool cuda_build = features.output.find("without CUDA") == std::string::npos;
  if (cuda_build) {
    EXPECT_NE(features.output.find("no usable GPU: no GPU or driver"), std::string::npos) << features.output;
  }
}

// `list --print-model` prints the built-in model; the old spelling `list --model` still does, with a note.
TEST(ListCli, PrintModelAndItsOldSpelling) {
  const auto printed = numprobe("list --arch sm_89 --print-model", false);
  ASSERT_EQ(printed.status, 0);
  EXPECT_NE(printed.output.find("\"name\": \"sm_89\""), std::string::npos) << printed.output.substr(0, 200);
  const auto old = numprobe("list --arch sm_89 --model 2>/dev/null", false);
  EXPECT_EQ(old.status, 0);
  EXPECT_EQ(old.output, printed.output);
  EXPECT_NE(numprobe("list --arch sm_89 --model").output.find("--model is now --print-model"), std::string::npos);
}

// A GPU whose architecture the catalog does not know (a future sm_110): refused before anything
// runs, naming the known ones; before, `record --instr all` recorded whatever instructions had
// min_sm <= 110 under an arch that replay then rejected.
TEST(RecordFaults, AnUnknownArchitectureIsRefusedBeforeAnythingRuns) {
  if (!has_command("record")) GTEST_SKIP() << "numprobe built without record (no MPFR)";
  const std::string out = temp_path("sm110.tcc");
  std::remove(out.c_str());
  const auto r = record("sm_110", "--out " + out);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("unknown architecture 'sm_110'; known: sm_70"), std::string::npos) << r.output;
  EXPECT_FALSE(exists(out));
  EXPECT_FALSE(exists(out + ".partial"));
}

// Before: `record --out` truncated an existing corpus.
TEST(RecordFaults, AnExistingCorpusIsKeptUnlessForced) {
  if (!has_command("record")) GTEST_SKIP() << "numprobe built without record (no MPFR)";
  const std::string out = write_file("existing.tcc", "# precious\n");
  std::remove((out + ".partial").c_str());
  auto r = record("sm_90", "--out " + out);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("exists; give --force"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(out), "# precious\n");
  r = record("sm_90", "--force --out " + out);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(count_of(read_file(out), "\nsm_90 "), 120u);
  std::remove(out.c_str());
}

// A kill in the middle of writing (kill_after: SIGKILL when device batch 3 starts): no
// half-written corpus at the target, the finished chunks kept in the partial file; a plain rerun
// is refused, --resume finishes it, and the result equals an uninterrupted run, case for case.
TEST(RecordFaults, AKilledRunLeavesNoHalfCorpusAndResumes) {
  if (!has_command("record")) GTEST_SKIP() << "numprobe built without record (no MPFR)";
  for (const std::string name : {"killed.tcc", "killed.tcc.gz"}) {
    const bool gz = name.size() > 3 && name.substr(name.size() - 3) == ".gz";
    const std::string out = temp_path(name), whole = temp_path("whole_" + name);
    const std::string partial = gz ? temp_path("killed.tcc.partial.gz") : out + ".partial";
    for (const std::string& f : {out, whole, partial}) std::remove(f.c_str());
    auto text = [&](const std::string& f) { return gz ? gunzip(f) : read_file(f); };

    ASSERT_EQ(record("sm_90", "--out " + whole).status, 0);
    auto r = record("sm_90,kill_after=2", "--out " + out);
    EXPECT_EQ(r.status, 128 + 9) << r.output;  // SIGKILL
    EXPECT_FALSE(exists(out)) << name;
    ASSERT_TRUE(exists(partial)) << name;
    EXPECT_EQ(count_of(text(partial), "# done: "), 2u) << text(partial);

    r = record("sm_90", "--out " + out);
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("give --resume"), std::string::npos) << r.output;
    r = record("sm_90", "--seed 2 --resume --out " + out);  // another seed: not the same recording
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("recorded by another command"), std::string::npos) << r.output;

    r = record("sm_90", "--resume --out " + out);
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("40 cases kept"), std::string::npos) << r.output;
    EXPECT_FALSE(exists(partial));
    EXPECT_EQ(case_lines(text(out)), case_lines(text(whole))) << name;
    EXPECT_EQ(count_of(case_lines(text(out)), "\n"), 120u);
    r = numprobe("replay " + out);
    EXPECT_NE(r.output.find("120 passed, 0 failed"), std::string::npos) << r.output;
    for (const std::string& f : {out, whole}) std::remove(f.c_str());
  }
}

// A full disk (a file-size limit plays it: writes past it fail with EFBIG; SIGXFSZ ignored): a
// clear error, no corpus at the target, the finished chunks kept; with room again, --resume
// completes it.
TEST(RecordFaults, AFullDiskFailsClearlyAndResumes) {
  if (!has_command("record")) GTEST_SKIP() << "numprobe built without record (no MPFR)";
  const std::string out = temp_path("full.tcc");
  for (const std::string& f : {out, out + ".partial"}) std::remove(f.c_str());
  auto r = record("sm_90", "--out " + out, "trap '' XFSZ; ulimit -f 16; ");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("write failed on '" + out + ".partial'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--resume"), std::string::npos) << r.output;
  EXPECT_FALSE(exists(out));
  const std::string kept = read_file(out + ".partial");
  EXPECT_GE(count_of(kept, "# done: "), 1u) << kept;
  r = record("sm_90", "--resume --out " + out);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(count_of(read_file(out), "\nsm_90 "), 120u);
  std::remove(out.c_str());
}

// /dev/full as the target: written in place (not a regular file), the error reported.
TEST(RecordFaults, DevFullIsAClearError) {
  if (!has_command("record")) GTEST_SKIP() << "numprobe built without record (no MPFR)";
  const auto r = record("sm_90", "--out /dev/full");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("write failed on '/dev/full'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("written to"), std::string::npos) << r.output;
}

// ---- issue 23: campaigns, recordings and checks never report success over lost, duplicated
// or corrupt data (docs/robustness.md, "Campaign outputs"; /work/shared/robustness D13-D27) ----

namespace {

// The stand-in device of the fuzz tests: sm_90 with frac_bits 24 where it has 25 (mismatches,
// signatures and raw lines to lose).
std::string dev24_model() {
  static const std::string path = [] {
    std::string m = numprobe("list --arch sm_90 --print-model", false).output;
    for (std::size_t p; (p = m.find("\"frac_bits\": 25")) != std::string::npos;) m.replace(p, 15, "\"frac_bits\": 24");
    return write_file("dev24.json", m);
  }();
  return path;
}

std::string fuzz_args(const std::string& cases = "20000") {
  return "fuzz --backend emu --device-model " + dev24_model() +
         " --instr mma.m16n8k16.f32.bf16.bf16.f32 --dist normal --batch 1024 --threads 1 --seed 1 --quiet --cases " + cases;
}

std::string fresh(const std::string& name) {
  const std::string p = temp_path(name);
  std::filesystem::remove_all(p);
  return p;
}

bool contains(const Outcome& r, const std::string& what) { return r.output.find(what) != std::string::npos; }

}  // namespace

// D13: two campaigns on one directory at once had no lock; both "succeeded" over a corrupt
// raw.tcc.gz. A held lock (here by flock(1), as a second numprobe would hold it) refuses the
// second with exit 2; the lock of a process that is gone is taken over.
TEST(CampaignCli, ASecondProcessOnOneCampaignIsRefusedAndAStaleLockIsTakenOver) {
  const std::string dir = fresh("locked");
  ASSERT_EQ(numprobe(fuzz_args() + " --out " + dir).status, 1);
  const std::string lock = dir + "/campaign.lock";
  auto r = shell("exec 9>>" + lock + "; flock 9; " + TCNUM_NUMPROBE + " " + fuzz_args() + " --resume --out " + dir + " 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "is in use by another numprobe")) << r.output;
  r = numprobe(fuzz_args() + " --resume --out " + dir);  // the holder is gone: its lock is free
  EXPECT_EQ(r.status, 1) << r.output;
}

// D14: one changed digit in checkpoint.json resumed a wrong campaign with exit 0. Now exit 2,
// saying what is wrong and how to recover, and raw.tcc.gz is not cut.
TEST(CampaignCli, OneChangedDigitInTheCheckpointIsAnError) {
  const std::string dir = fresh("digit");
  ASSERT_EQ(numprobe(fuzz_args() + " --out " + dir).status, 1);
  std::string ck = read_file(dir + "/checkpoint.json");
  const std::size_t at = ck.find("\"raw_bytes\":") + 12;
  ck[at] = ck[at] == '1' ? '2' : '1';
  write_file("digit_ck", ck);
  std::filesystem::copy_file(temp_path("digit_ck"), dir + "/checkpoint.json", std::filesystem::copy_options::overwrite_existing);
  const std::string raw = read_file(dir + "/raw.tcc.gz");
  const auto r = numprobe(fuzz_args() + " --resume --out " + dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "checkpoint.json is damaged")) << r.output;
  EXPECT_TRUE(contains(r, "--force")) << r.output;
  EXPECT_EQ(read_file(dir + "/raw.tcc.gz"), raw);
}

// D27: a campaign killed before its first checkpoint left raw.tcc.gz and no checkpoint; the plain
// rerun (docs/fuzz.md's Slurm script) appended to it: corrupt, duplicates, "complete". Now the
// rerun is refused, --resume says there is nothing to resume, --force starts again.
TEST(CampaignCli, APartialCampaignWithoutCheckpointIsRefusedUnlessForced) {
  const std::string dir = fresh("early_kill");
  std::filesystem::create_directories(dir);
  write_gzip("early_raw", "# numprobe fuzz raw mismatches\nsm_90 cut here");
  std::filesystem::copy_file(temp_path("early_raw"), dir + "/raw.tcc.gz");
  auto r = numprobe(fuzz_args() + " --out " + dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "killed before its first checkpoint")) << r.output;
  EXPECT_TRUE(contains(r, "--force")) << r.output;
  r = numprobe(fuzz_args() + " --resume --out " + dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "start it again with --force")) << r.output;
  r = numprobe(fuzz_args() + " --resume --force --out " + dir);
  EXPECT_EQ(r.status, 2) << r.output;
  r = numprobe(fuzz_args() + " --force --json --out " + dir, false);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r, "\"complete\": true")) << r.output;
  EXPECT_EQ(gunzip(dir + "/raw.tcc.gz").find("cut here"), std::string::npos);
  r = numprobe(fuzz_args() + " --out " + dir);  // a complete campaign is not overwritten either
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "pass --resume to continue it")) << r.output;
}

// D16 and D21: --cases -1 or 2^64 ran 0 cases, "complete", exit 0; --threads -1, --batch -1,
// --checkpoint-every nan and --time nan were accepted. Each is now exit 2 naming the range.
TEST(CampaignCli, OutOfRangeValuesAreRefused) {
  const std::string base = "fuzz --backend emu --device-model " + dev24_model() +
                           " --instr mma.m16n8k16.f32.bf16.bf16.f32 --dist normal --quiet --out " + fresh("range");
  for (const std::string bad : {"--cases -1", "--cases 18446744073709551616", "--cases 18446744073709551615",
                                "--cases 1e3", "--cases 10 --threads -1", "--cases 10 --batch -1",
                                "--cases 10 --batch 0", "--cases 10 --batches-per-round -1",
                                "--cases 10 --checkpoint-every -1", "--cases 10 --checkpoint-every nan",
                                "--cases 10 --checkpoint-every inf", "--time nan", "--time inf"}) {
    const auto r = numprobe(base + " " + bad);
    EXPECT_EQ(r.status, 2) << bad << "\n" << r.output;
    EXPECT_FALSE(contains(r, "complete")) << bad << "\n" << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(temp_path("range") + "/summary.json"));
}

// D25: --instr X,X or --dist d,d ran the same cases twice and counted them twice.
TEST(CampaignCli, AnInstructionOrDistributionGivenTwiceIsRefused) {
  const std::string m = " --backend emu --device-model " + dev24_model() + " --cases 1000 --quiet --out " + fresh("dup");
  auto r = numprobe("fuzz --instr mma.m16n8k16.f32.bf16.bf16.f32,mma.m16n8k16.f32.bf16.bf16.f32 --dist normal" + m);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "mma.m16n8k16.f32.bf16.bf16.f32 is given twice")) << r.output;
  r = numprobe("fuzz --instr mma.m16n8k16.f32.bf16.bf16.f32 --dist normal,normal" + m);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "distribution normal is given twice")) << r.output;
}

// D17: `fuzz merge A B --out A` overwrote shard A with the merge. D15: a shard whose raw.tcc.gz
// is cut was read with a freed error message. Both are exit 2 now, and nothing is written.
TEST(CampaignCli, MergeRefusesItsOwnInputAndADamagedShard) {
  const std::string s0 = fresh("m_s0"), s1 = fresh("m_s1"), out = fresh("m_out");
  ASSERT_EQ(numprobe(fuzz_args() + " --shard 0/2 --out " + s0).status, 1);
  ASSERT_EQ(numprobe(fuzz_args() + " --shard 1/2 --out " + s1).status, 1);
  const std::string sum0 = read_file(s0 + "/summary.json"), raw0 = read_file(s0 + "/raw.tcc.gz");
  for (const std::string& into : {s0, s0 + "/", s0 + "/../" + std::filesystem::path(s0).filename().string()}) {
    const auto r = numprobe("fuzz merge " + s0 + " " + s1 + " --out " + into);
    EXPECT_EQ(r.status, 2) << into << "\n" << r.output;
    EXPECT_TRUE(contains(r, "is the input")) << r.output;
  }
  EXPECT_EQ(read_file(s0 + "/summary.json"), sum0);
  EXPECT_EQ(read_file(s0 + "/raw.tcc.gz"), raw0);
  ASSERT_EQ(numprobe("fuzz merge " + s0 + " " + s1 + " --out " + out).status, 0);
  // A shard's raw file cut short (a killed copy): an error naming it, no merge written.
  const std::string cut = fresh("m_cut");
  std::filesystem::copy(s1, cut);
  std::filesystem::resize_file(cut + "/raw.tcc.gz", std::filesystem::file_size(cut + "/raw.tcc.gz") - 100);
  const std::string out2 = fresh("m_out2");
  const auto r = numprobe("fuzz merge " + s0 + " " + cut + " --out " + out2);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, cut + "/raw.tcc.gz: unexpected end of file")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out2 + "/summary.json"));
}

// D13 for record: two `record --resume` of one target at once wrote one partial file together.
// The target's lock (held here by flock(1)) refuses the second.
TEST(RecordFaults, ASecondRecordingOfOneTargetIsRefused) {
  if (!has_command("record")) GTEST_SKIP() << "numprobe built without record (no MPFR)";
  const std::string out = temp_path("locked.tcc");
  for (const std::string& f : {out, out + ".partial", out + ".lock"}) std::remove(f.c_str());
  auto r = record("sm_90", "--out " + out, "exec 9>>" + out + ".lock; flock 9; ");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "is in use by another numprobe")) << r.output;
  EXPECT_FALSE(exists(out));
  r = record("sm_90", "--out " + out);  // the holder is gone
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(exists(out + ".lock"));
  std::remove(out.c_str());
}

// D20: `record --force` with X.partial a symlink wrote the recording into the link's target.
TEST(RecordFaults, ForceRemovesASymlinkedPartialFileAndNeverWritesThroughIt) {
  if (!has_command("record")) GTEST_SKIP() << "numprobe built without record (no MPFR)";
  const std::string out = temp_path("linked.tcc"), precious = write_file("precious.txt", "precious data\n");
  std::remove((out + ".partial").c_str());
  std::remove(out.c_str());
  ASSERT_EQ(::symlink(precious.c_str(), (out + ".partial").c_str()), 0);
  auto r = record("sm_90", "--out " + out);
  EXPECT_NE(r.status, 0) << r.output;
  r = record("sm_90", "--force --out " + out);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_file(precious), "precious data\n");
  EXPECT_FALSE(std::filesystem::is_symlink(out));
  EXPECT_EQ(count_of(read_file(out), "\nsm_90 "), 120u);
  std::remove(out.c_str());
}

// D23: `record --resume` kept the finished chunks of X.partial unchecked (a gzip partial file is
// one unfinished member: no CRC); a damaged chunk became part of a valid corpus. Each chunk's
// "# done" line now carries a CRC-32 of its cases, and a resume refuses a chunk that fails it.
TEST(RecordFaults, AResumeRefusesADamagedFinishedChunk) {
  if (!has_command("record")) GTEST_SKIP() << "numprobe built without record (no MPFR)";
  const std::string out = temp_path("damaged.tcc"), partial = out + ".partial";
  for (const std::string& f : {out, partial}) std::remove(f.c_str());
  auto r = record("sm_90,kill_after=2", "--out " + out);
  ASSERT_EQ(r.status, 128 + 9) << r.output;
  std::string text = read_file(partial);
  const std::size_t at = text.find("\nsm_90 ") + 40;  // a hex digit of the first case's A
  text[at] = text[at] == '0' ? '1' : '0';
  std::ofstream(partial, std::ios::binary) << text;
  r = record("sm_90", "--resume --out " + out);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "is damaged: its finished chunk")) << r.output;
  EXPECT_EQ(read_file(partial), text);
  EXPECT_FALSE(exists(out));
  std::remove(partial.c_str());
}

// D24: `check --mismatches-out FILE` overwrote an existing corpus. Now refused unless --force,
// and written through a temporary file.
TEST(CheckCli, MismatchesOutRefusesAnExistingFileUnlessForced) {
  if (!has_command("check")) GTEST_SKIP() << "numprobe built without check (no MPFR)";
  const std::string out = write_file("precious.tcc", kGood);
  const std::string check = "TCNUM_SIMULATED_DEVICE=sm_90 " + std::string(TCNUM_NUMPROBE) +
                            " check --instr mma.m16n8k16.f32.bf16.bf16.f32 --dist normal --cases 2000 --seed 3 --model " +
                            dev24_model() + " --mismatches-out " + out;
  auto r = shell(check + " 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "exists; give --force")) << r.output;
  EXPECT_EQ(read_file(out), kGood);
  r = shell(check + " --force 2>&1");
  EXPECT_EQ(r.status, 1) << r.output;  // the stand-in model differs: mismatches
  EXPECT_NE(read_file(out), kGood);
  EXPECT_GT(count_of(read_file(out), "sm_90 mma.m16n8k16.f32.bf16.bf16.f32"), 0u);
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(out).parent_path()))
    EXPECT_EQ(e.path().string().find(out + ".tmp"), std::string::npos) << e.path();
}

// D19: a key twice in a model file: the last one silently won. Now an error naming its path.
TEST(ReplayCli, AModelWithADuplicateKeyIsRefused) {
  std::string m = numprobe("list --arch sm_90 --print-model", false).output;
  const std::size_t at = m.find("\"frac_bits\": 25");
  ASSERT_NE(at, std::string::npos);
  m.insert(at, "\"frac_bits\": 24, ");
  const auto r = numprobe("replay --model " + write_file("dup_key.json", m) + " " + write_file("dup_key.tcc", kGood));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "model JSON: rules[2].frac_bits: duplicate key")) << r.output;  // rules[0]: integer
}

// D18: a gzip member with a wrong header CRC (FLG.FHCRC) passed through libdeflate (files up to
// 64 MiB) and failed through zlib. Both reject it now.
TEST(ReplayCli, AGzipMemberWithAWrongHeaderCrcIsAReadError) {
  z_stream z{};
  ASSERT_EQ(deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string body(kGood.size() + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(kGood.data()));
  z.avail_in = static_cast<uInt>(kGood.size());
  z.next_out = reinterpret_cast<Bytef*>(body.data());
  z.avail_out = static_cast<uInt>(body.size());
  ASSERT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  body.resize(z.total_out);
  deflateEnd(&z);
  const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(kGood.data()), static_cast<uInt>(kGood.size()));
  std::string file = {'\x1f', '\x8b', 8, 2, 0, 0, 0, 0, 0, 3, '\x12', '\x34'};  // FHCRC set, CRC16 wrong
  file += body;
  for (uLong v : {crc, static_cast<uLong>(kGood.size())})
    for (int i = 0; i < 4; ++i) file += static_cast<char>((v >> (8 * i)) & 0xff);
  const auto r = numprobe("replay " + write_file("fhcrc.tcc.gz", file));
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r, "malformed")) << r.output;
  EXPECT_FALSE(contains(r, "1 passed")) << r.output;
}

// D21: past a file-size limit SIGXFSZ killed fuzz without a word. Now the write error is reported.
TEST(CampaignCli, AFileSizeLimitIsAClearError) {
  const auto r = shell("ulimit -f 8; " + std::string(TCNUM_NUMPROBE) + " " + fuzz_args("200000") + " --out " + fresh("xfsz") + " 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "File too large")) << r.output;
}

// D22: chain's outputs kept mkstemp's mode 0600 whatever the umask; `--out X --summary X` said
// "wrote X and X" and kept only the summary.
TEST(OutputCli, OutputsHonourTheUmaskAndOneFileIsNotBothOutputs) {
  if (!has_command("chain")) GTEST_SKIP() << "numprobe built without chain (no MPFR)";
  const std::string a = temp_path("mode.csv"), x = temp_path("same.csv");
  std::remove(a.c_str());
  std::remove(x.c_str());
  auto r = shell("umask 022; " + std::string(TCNUM_NUMPROBE) + " " + kSmallChain + " --out " + a + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(std::filesystem::status(a).permissions() & std::filesystem::perms::all,
            std::filesystem::perms(0644));
  r = numprobe(kSmallChain + " --out " + x + " --summary " + x);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "name the same file")) << r.output;
  EXPECT_FALSE(exists(x));
  std::remove(a.c_str());
}

// D21: a chain run interrupted by SIGINT left its temporary file (OUT.tmp-XXXXXX) behind. (SIGTERM
// here: a non-interactive shell starts background jobs with SIGINT ignored; the same handler
// serves SIGINT, SIGTERM and SIGHUP.)
TEST(OutputCli, AnInterruptedRunLeavesNoTemporaryFile) {
  if (!has_command("chain")) GTEST_SKIP() << "numprobe built without chain (no MPFR)";
  const std::string out = temp_path("interrupted.csv");
  std::remove(out.c_str());
  std::string cmd = std::string("(") + TCNUM_NUMPROBE;
  cmd += " chain --dtype bf16 --init low --trials 2000000 --max-len 4 --no-exact --quiet --out " + out;
  cmd += " & p=$!; sleep 0.5; kill -TERM $p; wait $p) 2>&1";
  const auto r = shell(cmd);
  EXPECT_EQ(r.status, 128 + 15) << r.output;  // ended by the signal, as before
  EXPECT_FALSE(exists(out));
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(out).parent_path()))
    EXPECT_NE(e.path().filename().string().rfind("tcnum_cli_" + std::to_string(::getpid()) + "_interrupted.csv.tmp", 0), 0u)
        << e.path();
}

// Issue 23, signals: a SIGTERM (a job's time limit, a requeue) ended a campaign wherever it was,
// at its last checkpoint, up to --checkpoint-every seconds back, or with none at all. Now it
// ends after the running pair with a checkpoint and a message, and --resume completes it.
TEST(CampaignCli, ASignalEndsACampaignWithACheckpoint) {
  const std::string dir = fresh("sigterm");
  // The signal is sent once the campaign has printed its header (its handlers are installed by
  // then); a fixed delay raced the start-up on a loaded CI machine.
  const std::string log = dir + ".log";
  std::string cmd = std::string("(") + TCNUM_NUMPROBE + " " + fuzz_args("4000000");
  cmd += " --batches-per-round 1 --checkpoint-every 1000 --out " + dir + " 2>" + log + " & p=$!;";
  cmd += " for i in $(seq 600); do grep -q '^fuzz: ' " + log + " && break; sleep 0.1; done;";
  cmd += " sleep 0.3; kill -TERM $p; wait $p; s=$?; cat " + log + "; exit $s) 2>&1";
  const auto r = shell(cmd);
  ASSERT_EQ(r.status, 128 + 15) << r.output;
  EXPECT_TRUE(contains(r, "interrupted by signal 15")) << r.output;
  ASSERT_TRUE(std::filesystem::exists(dir + "/checkpoint.json"));
  const auto done = numprobe(fuzz_args("4000000") + " --batches-per-round 1 --json --resume --out " + dir, false);
  EXPECT_EQ(done.status, 1) << done.output;
  EXPECT_TRUE(contains(done, "\"cases\": 4000000")) << done.output;
  EXPECT_TRUE(contains(done, "\"complete\": true")) << done.output;
}

// D21f: --resume with another --device-model was accepted (the summary then named only the last
// device): cases of two devices mixed in one campaign. The checkpoint records the device's kind.
TEST(CampaignCli, AResumeOnAnotherDeviceIsRefused) {
  const std::string dir = fresh("other_device"), sm90 = temp_path("sm90_device.json");
  ASSERT_EQ(numprobe(fuzz_args() + " --out " + dir).status, 1);
  ASSERT_EQ(numprobe("list --arch sm_90 --print-model > " + sm90, false).status, 0);
  std::string args = fuzz_args();
  args.replace(args.find(dev24_model()), dev24_model().size(), sm90);
  const auto r = numprobe(args + " --resume --out " + dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "holds results of another device")) << r.output;
  EXPECT_EQ(numprobe(fuzz_args() + " --resume --out " + dir).status, 1);
}

// D21i: a corpus line with a 1 MB instruction name was quoted whole in replay's error.
TEST(ReplayCli, AHugeInstructionNameIsShownShortened) {
  const std::string name = "mma." + std::string(200000, 'm');
  const auto r = numprobe("replay " + write_file("huge_name.tcc", "sm_90 " + name + " 00 00 00000000 00000000\n"));
  EXPECT_NE(r.status, 0) << r.output.substr(0, 400);
  EXPECT_TRUE(contains(r, "... (200004 bytes)")) << r.output.substr(0, 400);
  EXPECT_LT(r.output.size(), 20000u);
}

// D21g: merging shards of different builds named only the first shard's build in the merge.
TEST(CampaignCli, AMergeOfShardsOfDifferentBuildsNamesEveryBuild) {
  const std::string s0 = fresh("b_s0"), s1 = fresh("b_s1"), out = fresh("b_out");
  ASSERT_EQ(numprobe(fuzz_args() + " --shard 0/2 --out " + s0).status, 1);
  ASSERT_EQ(numprobe(fuzz_args() + " --shard 1/2 --out " + s1).status, 1);
  std::string sum = read_file(s1 + "/summary.json");
  const std::size_t at = sum.find("\"build\": \"") + 10;
  sum.replace(at, 4, "beef");
  std::ofstream(s1 + "/summary.json", std::ios::binary) << sum;
  ASSERT_EQ(numprobe("fuzz merge " + s0 + " " + s1 + " --out " + out).status, 0);
  const std::string merged = read_file(out + "/summary.json");
  EXPECT_NE(merged.find("\"build\": ["), std::string::npos) << merged.substr(0, 600);
  EXPECT_NE(merged.find("\"beef"), std::string::npos) << merged.substr(0, 600);
}

// D13 with two real numprobe processes: the second is refused while the first runs, naming it.
TEST(CampaignCli, TwoCampaignsOnOneDirectoryTheSecondIsRefusedNamingTheFirst) {
  const std::string dir = fresh("race");
  std::string cmd = std::string("(") + TCNUM_NUMPROBE + " " + fuzz_args("4000000") + " --out " + dir + " & p=$!; ";
  cmd += "for i in $(seq 100); do grep -q pid " + dir + "/campaign.lock 2>/dev/null && break; sleep 0.05; done; ";
  cmd += std::string(TCNUM_NUMPROBE) + " " + fuzz_args("4000000") + " --resume --out " + dir + "; echo \"second=$? first=$p\"; ";
  cmd += "kill -TERM $p; wait $p) 2>&1";
  const auto r = shell(cmd);
  const std::size_t at = r.output.find("first=");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string first = r.output.substr(at + 6, r.output.find('\n', at) - at - 6);
  EXPECT_TRUE(contains(r, "second=2")) << r.output;
  EXPECT_TRUE(contains(r, "is in use by another numprobe (pid " + first + " on ")) << r.output;
}

// ---- issue 25: one --instr grammar (tools/numprobe/instr_option.hpp) ----

namespace {

// Each command with --instr, as a user runs it cheaply (one trial, one case; record and check on
// a GPU played by the emulator, fuzz against the model it is compared with); those of this build.
std::vector<std::string> commands_with_instr() {
  static const std::string sm90 = write_file("instr_sm90.json", numprobe("list --arch sm_90 --print-model", false).output);
  std::vector<std::string> out = {"fuzz --backend emu --device-model " + sm90 +
                                  " --dist normal --cases 1 --threads 1 --quiet --force --out " + temp_path("instr_fuzz")};
  for (const char* c : {"record --dist normal --cases 1 --force --out /dev/null", "check --dist normal --cases 1",
                        "features --dtype bf16 --op align", "profile --dtype bf16 --op multiply --trials 1",
                        "fit --backend emu --random-cases 1",
                        "chain --dtype bf16 --init low --trials 1 --max-len 1 --no-exact --quiet --force --out /dev/null"}) {
    const std::string name = std::string(c).substr(0, std::string(c).find(' '));
    if (has_command(name)) out.push_back(c);
  }
  return out;
}

Outcome run_with_instr(const std::string& cmd, const std::string& spec) {
  const bool gpu = cmd.rfind("record", 0) == 0 || cmd.rfind("check", 0) == 0;
  return shell(std::string(gpu ? "TCNUM_SIMULATED_DEVICE=sm_90 " : "") + TCNUM_NUMPROBE + " " + cmd + " --instr '" + spec +
               "' 2>&1");
}

}  // namespace

// Before: fuzz read comma lists and the words mma and wgmma, chain mma and wgmma but no list,
// features and fit 'all' or one name, record and check 'all' or one name after asking for a GPU;
// an unknown word was reported as a missing instruction with every name of the arch, or as no GPU.
TEST(InstrOption, EveryCommandRefusesTheSameBadSpellingsWithOneMessageAndExit2) {
  const std::pair<std::string, std::string> bad[] = {
      {"mmaa", "--instr: 'mmaa' is neither a word nor an instruction of any architecture"},
      {"mma,,wgmma", "--instr: an empty item in 'mma,,wgmma'"},
      {"mma.m16n8k16.f32.bf16.bf16.f32,mma.m16n8k16.f32.bf16.bf16.f32", "--instr: mma.m16n8k16.f32.bf16.bf16.f32 is given twice"},
      {"mma.m16n8k16.f32.bf16.bf16.f33", "--instr: 'mma.m16n8k16.f32.bf16.bf16.f33' is neither a word nor an instruction"},
      {"", "--instr: an empty item in ''"}};
  for (const auto& cmd : commands_with_instr())
    for (const auto& [spec, message] : bad) {
      const auto r = run_with_instr(cmd, spec);
      EXPECT_EQ(r.status, 2) << cmd << " --instr '" << spec << "'\n" << r.output;
      EXPECT_TRUE(contains(r, message)) << cmd << " --instr '" << spec << "'\n" << r.output;
    }
}

// A name, a family word and (for the commands that run a set) a list and 'all' are taken by every
// command; the commands of one instruction per dtype refuse a list or 'all' with one message.
TEST(InstrOption, EveryCommandTakesTheSameSpellings) {
  const std::string name = "mma.m16n8k16.f32.bf16.bf16.f32";
  for (const auto& cmd : commands_with_instr()) {
    const bool one = cmd.rfind("chain", 0) == 0 || cmd.rfind("profile", 0) == 0;
    for (const std::string& spec : {name, std::string("mma"), name + ",mma.m16n8k8.f32.bf16.bf16.f32", std::string("all")}) {
      const bool refused = one && (spec == "all" || spec.find(',') != std::string::npos);
      if (cmd.rfind("fit", 0) == 0 && (spec == "all" || spec == "mma")) continue;  // seconds each: the fit of a set
      const auto r = run_with_instr(cmd, spec);
      if (refused) {
        EXPECT_EQ(r.status, 2) << cmd << " --instr " << spec << "\n" << r.output;
        EXPECT_TRUE(contains(r, "one instruction per dtype: give one family")) << cmd << " --instr " << spec << "\n" << r.output;
      } else {
        EXPECT_EQ(r.status, 0) << cmd << " --instr " << spec << "\n" << r.output;
      }
    }
  }
}

// A word that selects nothing on the architecture, and a name the architecture lacks, are refused.
TEST(InstrOption, ASelectionOfNothingOrAnotherArchitecturesNameIsRefused) {
  if (!has_command("fit")) GTEST_SKIP() << "numprobe built without fit (no MPFR)";
  auto r = numprobe("fit --backend emu --arch sm_80 --instr wgmma");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "--instr: 'wgmma' selects no instruction this command runs on sm_80")) << r.output;
  r = numprobe("features --arch sm_80 --dtype bf16 --op align --instr wgmma.m64n8k16.f32.bf16.bf16");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "--instr: instruction 'wgmma.m64n8k16.f32.bf16.bf16' is not available on sm_80")) << r.output;
  r = numprobe("fuzz --backend emu --device-model " + dev24_model() + " --dist normal --cases 1 --quiet --force --out " +
               temp_path("instr_twice") + " --instr all,mma");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "--instr: 'all,mma' selects mma.m16n8k8.f16.f16.f16.f16 twice")) << r.output;
}

// ---- issue 25: every writer's files honour the umask, and existing data is kept unless --force ----

namespace {

// Each writer as a user runs it, writing under DIR (replaced by a folder): the command, and what
// it writes there. Record and check on a GPU played by the emulator.
std::vector<std::pair<std::string, std::vector<std::string>>> writers() {
  static const std::string sm90 = write_file("writers_sm90.json", numprobe("list --arch sm_90 --print-model", false).output);
  const std::string name = " --instr mma.m16n8k16.f32.bf16.bf16.f32";
  std::vector<std::pair<std::string, std::vector<std::string>>> out = {
      {"fuzz --backend emu --device-model " + sm90 + name + " --dist normal --cases 256 --threads 1 --quiet --out DIR/camp",
       {"camp", "camp/summary.json", "camp/raw.tcc.gz", "camp/mismatches.tcc", "camp/checkpoint.json"}},
      {"fuzz merge DIR/camp --out DIR/merged", {"merged", "merged/summary.json", "merged/raw.tcc.gz", "merged/mismatches.tcc"}}};
  if (has_command("record")) {
    out.push_back({"record" + name + " --dist normal --cases 4 --out DIR/r.tcc.gz", {"r.tcc.gz"}});
    out.push_back({"check" + name + " --dist normal --cases 4 --mismatches-out DIR/m.tcc", {"m.tcc"}});
  }
  if (has_command("chain")) out.push_back({kSmallChain + " --out DIR/c.csv --summary DIR/s.csv", {"c.csv", "s.csv"}});
  if (has_command("fit")) out.push_back({"fit --backend emu --random-cases 1" + name + " --out DIR/f.json", {"f.json"}});
  return out;
}

Outcome run_writer(const std::string& cmd, const std::string& dir, const std::string& prefix = "") {
  std::string c = cmd;
  for (std::size_t p; (p = c.find("DIR")) != std::string::npos;) c.replace(p, 3, dir);
  return shell(prefix + "TCNUM_SIMULATED_DEVICE=sm_90 " + TCNUM_NUMPROBE + " " + c + " 2>&1");
}

std::filesystem::perms mode_of(const std::string& path) {
  return std::filesystem::status(path).permissions() & std::filesystem::perms::all;
}

}  // namespace

// Files get 0666 and folders 0777 less the umask (here 027: 0640 and 0750), as a plain create
// would give them; before, chain's outputs were mkstemp's 0600 whatever the umask.
TEST(OutputCli, EveryWriterHonoursTheUmask) {
  for (const char* umask : {"027", "002"}) {
    const std::string dir = fresh(std::string("umask") + umask);
    std::filesystem::create_directories(dir);
    const auto file_mode = std::filesystem::perms(0666 & ~std::stoi(umask, nullptr, 8));
    const auto dir_mode = std::filesystem::perms(0777 & ~std::stoi(umask, nullptr, 8));
    for (const auto& [cmd, files] : writers()) {
      const auto r = run_writer(cmd, dir, std::string("umask ") + umask + "; ");
      ASSERT_EQ(r.status, 0) << cmd << "\n" << r.output;
      for (const auto& f : files) {
        const std::string path = dir + "/" + f;
        ASSERT_TRUE(exists(path)) << cmd << ": no " << f;
        EXPECT_EQ(mode_of(path), std::filesystem::is_directory(path) ? dir_mode : file_mode) << "umask " << umask << ": " << path;
      }
    }
    std::filesystem::remove_all(dir);
  }
}

// Run again over their own outputs, the writers refuse (exit 2, the file unchanged) and say
// --force; with --force they write. Before, `fuzz merge` overwrote an earlier merge.
TEST(OutputCli, NoWriterOverwritesExistingDataWithoutForce) {
  const std::string dir = fresh("overwrite");
  std::filesystem::create_directories(dir);
  for (const auto& [cmd, files] : writers()) {
    ASSERT_EQ(run_writer(cmd, dir).status, 0) << cmd;
    const std::string first = dir + "/" + (files.size() > 1 ? files[1] : files[0]);
    const std::string before = read_file(first);
    const auto mtime = std::filesystem::last_write_time(first);
    auto r = run_writer(cmd, dir);
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.output;
    EXPECT_TRUE(contains(r, "--force")) << cmd << "\n" << r.output;
    EXPECT_EQ(read_file(first), before) << cmd;
    EXPECT_EQ(std::filesystem::last_write_time(first), mtime) << cmd;
    r = run_writer(cmd + " --force", dir);
    EXPECT_EQ(r.status, 0) << cmd << " --force\n" << r.output;
  }
  std::filesystem::remove_all(dir);
}

// Issue 25: `chain --summary S` (or --json) without --out also wrote the default per-trial
// chain.csv, and the same command run again refused over it. Only what is asked for is written.
TEST(OutputCli, ChainWritesNoPerTrialFileWhenOnlyASummaryIsAskedFor) {
  if (!has_command("chain")) GTEST_SKIP() << "numprobe built without chain (no MPFR)";
  const std::string dir = fresh("summary_only");
  std::filesystem::create_directories(dir);
  const auto in_dir = [&](const std::string& args) {
    return shell("cd " + dir + " && " + TCNUM_NUMPROBE + " " + kSmallChain + " " + args + " 2>&1");
  };
  auto r = in_dir("--summary s.csv");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r, "wrote s.csv\n")) << r.output;
  EXPECT_TRUE(exists(dir + "/s.csv"));
  EXPECT_FALSE(exists(dir + "/chain.csv"));
  r = in_dir("--json");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(exists(dir + "/chain.csv"));
  r = in_dir("--summary s2.csv --out t.csv");  // both asked for: both written
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(exists(dir + "/s2.csv") && exists(dir + "/t.csv"));
  r = in_dir("");  // no summary: the per-trial file under its default name
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(exists(dir + "/chain.csv"));
  std::filesystem::remove_all(dir);
}

// numprobe reveal: 0 with the schedule found as JSON on stdout, 1 when nothing in the language
// fits, 2 on bad input — each with a clear message.
const std::string kRevealBf16 = "reveal --instr mma.m16n8k16.f32.bf16.bf16.f32 --m 4 --n 4 --max-split 4 --backend emu";

TEST(RevealCli, AHiddenScheduleIsFoundAndPrintedAsScheduleJson) {
  const std::string hidden = write_file("hidden.json", R"({"split_k": 3, "slice_rule": "whole_tiles", "tile_k": 32})");
  const std::string report = temp_path("reveal_report.json");
  const auto r = numprobe(kRevealBf16 + " --k 200 --hidden " + hidden + " --json " + report, false);
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_FALSE(r.output.empty());
  EXPECT_EQ(r.output.front(), '{') << r.output;  // stdout: the schedule JSON alone, one line
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
  EXPECT_NE(r.output.find("\"version\":1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"split_k\":3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"tile_k\":32"), std::string::npos) << r.output;
  // The found schedule is a valid --hidden file itself: revealing it again finds it at once.
  const std::string again = write_file("again.json", r.output);
  EXPECT_EQ(numprobe(kRevealBf16 + " --k 200 --hidden " + again, false).output, r.output);
  const std::string text = read_file(report);
  EXPECT_NE(text.find("\"found\": true"), std::string::npos) << text;
  EXPECT_NE(text.find("\"best_matched\": 64"), std::string::npos) << text;
}

TEST(RevealCli, AScheduleOutsideTheSearchedLanguageIsReportedWithExitOne) {
  // Partials rounded to bf16 before the reduction: no candidate does that.
  const std::string hidden = write_file("outside.json", R"({"split_k": 2, "partial_format": "bf16"})");
  const auto r = numprobe(kRevealBf16 + " --k 200 --hidden " + hidden);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("no schedule in the language fits: the best of "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" of 64 output elements"), std::string::npos) << r.output;
}

TEST(RevealCli, BadInputEndsWithExitTwoAndAClearMessage) {
  const std::string good = write_file("good_hidden.json", R"({"split_k": 2})");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"reveal --instr mma.m16n8k99.f32.bf16.bf16.f32 --k 64 --hidden " + good, "is not available on sm_90"},
      {kRevealBf16 + " --k 64 --hidden " + write_file("unknown_key.json", R"({"split": 2})"), "unknown key \"split\""},
      {kRevealBf16 + " --k 64 --hidden " + write_file("truncated.json", R"({"split_k": )"), "--hidden"},
      {kRevealBf16 + " --k 64 --hidden " + write_file("negative.json", R"({"split_k": -3})"), "split_k"},
      {kRevealBf16 + " --k 64 --hidden " + write_file("too_many.json", R"({"split_k": 9})"), "split_k = 9 must be in 1..steps"},
      {kRevealBf16 + " --k 64 --hidden /nonexistent/h.json", "cannot read '/nonexistent/h.json'"},
      {kRevealBf16 + " --k 64 --hidden /dev/zero", "--hidden /dev/zero: over 1 MiB: not a schedule"},
      {kRevealBf16 + " --k 64", "--backend emu needs --hidden"},
      {kRevealBf16 + " --k 0 --hidden " + good, "--k"},
      {kRevealBf16 + " --m 100000 --k 64 --hidden " + good, "--m"},
      {"reveal --instr mma.m16n8k16.f32.bf16.bf16.f32 --m 4096 --n 4096 --k 1000 --hidden " + good, "too large to search"},
      {kRevealBf16 + " --k 64 --max-split 0 --hidden " + good, "--max-split"},
      {"reveal --instr mma.m16n8k16.f32.bf16.bf16.f32 --k 64 --backend cublaslt --hidden " + good,
       "'cublaslt' is not a black box of this build"},
      {"reveal --arch sm_120 --instr mma.m16n8k64.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 --k 64 "
       "--hidden " + good, "block-scaled"},
      {"reveal --k 64 --hidden " + good, "--instr is required"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = numprobe(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
}

TEST(RevealCli, TheHelpsFirstExampleRunsAsPrinted) {
  const auto help = numprobe("reveal --help");
  EXPECT_EQ(help.status, 0);
  const std::string echo = R"(echo '{"split_k": 3, "slice_rule": "whole_tiles", "tile_k": 64}' > hidden.json)";
  const std::string example = "reveal --instr mma.m16n8k16.f32.bf16.bf16.f32 --k 1000 --backend emu --hidden hidden.json";
  ASSERT_NE(help.output.find(echo), std::string::npos) << help.output;
  ASSERT_NE(help.output.find("numprobe " + example), std::string::npos) << help.output;
  const std::string dir = temp_path("reveal_example");
  std::filesystem::create_directories(dir);
  const auto r = shell("cd " + dir + " && " + echo + " && " + TCNUM_NUMPROBE + " " + example + " 2>/dev/null");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("\"slice_rule\":\"whole_tiles\",\"split_k\":3,"), std::string::npos) << r.output;
}

namespace {

// record and check take sparse names (and the word sparse): seven-field lines with the metadata
// that replay reproduces, and a live check of 0 mismatches, on a GPU played by the built-in model.
TEST(RecordCli, SparseInstructionsAreRecordedAndChecked) {
  if (!has_command("record")) GTEST_SKIP() << "numprobe built without record (no MPFR)";
  const std::string out = temp_path("sparse") + ".tcc";
  const std::string name = "wgmma.mma_async.sp.m64n64k64.satfinite.s32.s8.u8";
  auto r = shell("TCNUM_SIMULATED_DEVICE=sm_90 " + std::string(TCNUM_NUMPROBE) + " record --instr " + name +
                 ",mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32 --cases 30 --seed 5 --out " + out + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string text = read_file(out);
  EXPECT_EQ(count_of(text, "sm_90 " + name + " "), 6u * 30u);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') EXPECT_EQ(std::count(line.begin(), line.end(), ' '), 6) << line;  // 7 fields
  r = numprobe("replay " + out, true);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r, std::to_string(2 * 6 * 30) + " passed, 0 failed")) << r.output;
  r = shell("TCNUM_SIMULATED_DEVICE=sm_90 " + std::string(TCNUM_NUMPROBE) + " check --instr sparse --dist cancel --cases 20 --seed 9 2>&1");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r, " 0 failed")) << r.output;
  // An f64 DMMA name is refused with the way to it.
  r = shell("TCNUM_SIMULATED_DEVICE=sm_90 " + std::string(TCNUM_NUMPROBE) + " check --instr mma.m16n8k8.f64.f64.f64.f64 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r, "tcnum::dmma_element")) << r.output;
}

}  // namespace
