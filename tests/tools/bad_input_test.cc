// Copyright 2026 The GridStore Authors.
//
// The catalogue of bad input: one row per mistake a user (or a script) can make, run through the
// real `gridstore` binary. For every row: the exit status, exactly one clear line on stderr
// ("gridstore: ..." holding the expected parts; a --where syntax error adds its two caret lines),
// and the store exactly as it was: every key and value of every table is compared before and
// after, and a store that did not exist must still not exist. To add a case, add a row to
// Catalogue(); each row is its own ctest case (tools.Catalogue/BadInputTest.Row/<name>).
#include <rocksdb/db.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"
#include "tests/tools/nc_testutil.h"
#include "tools/meta_commands.h"

namespace gridstore {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadFile;
using testing::RunGridStore;
using testing::RunResult;
using testing::ScopedTempDir;

// What STORE is when the row runs.
enum class Setup {
  // A path where nothing exists; nothing may exist there afterwards (not even an empty store).
  kNoStore,
  // The shared store: dataset `d` (float T and U over time 2, level 1, lat 6, lon 8), `inc` (the
  // same, status INIT), `cat` (a meta without variables), index `main` (status:string).
  kStore,
  // The shared store, held open for writing by the test process while the command runs.
  kLockedStore,
  // A copy of the shared store with every file and folder read-only (the command runs as the
  // unprivileged user "nobody" when the test runs as root, which permissions do not stop).
  kReadOnlyStore,
  // A RocksDB database some other program made (only the default column family, one key): it
  // must be refused, and its files left byte for byte as they were.
  kForeignDatabase,
};

struct BadInput {
  std::string name;  // the ctest case name: letters, digits and '_'
  Setup setup;
  // After `--store STORE`. In args and message, @DIR@ is the folder of the input files and
  // @STORE@ the store's path.
  std::vector<std::string> args;
  int exit_code;
  std::vector<std::string> message;  // parts of stderr
  std::string stdin_text = "";
  int stderr_lines = 1;
  bool unprivileged = false;  // run as "nobody" when the test runs as root
};

// For gtest's messages: the row's name, not its bytes.
void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::vector<BadInput> Catalogue() {
  const Setup kNo = Setup::kNoStore, kSt = Setup::kStore, kLock = Setup::kLockedStore,
              kRo = Setup::kReadOnlyStore, kFor = Setup::kForeignDatabase;
  const std::string good = "@DIR@/good.nc";
  const std::string deep_parens = std::string(20000, '(') + "a = 1" + std::string(20000, ')');
  const std::string deep_nots = Repeat("not ", 20000) + "a = 1";
  const std::string long_id(257, 'x');
  // One row per mistake, each kept as written (the formatter would scatter them).
  // clang-format off
  return {
      // ---- import: files ----
      {"import_missing_file", kNo, {"import", "@DIR@/missing.nc", "--dataset", "x"}, 1,
       {"'@DIR@/missing.nc'", "no such file"}},
      {"import_text_file", kNo, {"import", "@DIR@/text.nc", "--dataset", "x"}, 1,
       {"'@DIR@/text.nc' is not a NetCDF file"}},
      {"import_png_file", kNo, {"import", "@DIR@/picture.png", "--dataset", "x"}, 1,
       {"'@DIR@/picture.png' is not a NetCDF file"}},
      {"import_empty_file", kNo, {"import", "@DIR@/empty.nc", "--dataset", "x"}, 1,
       {"'@DIR@/empty.nc' is not a NetCDF file"}},
      {"import_truncated_header", kNo, {"import", "@DIR@/cut.nc", "--dataset", "x"}, 1,
       {"'@DIR@/cut.nc'"}},
      {"import_directory", kNo, {"import", "@DIR@/adir", "--dataset", "x"}, 1, {"'@DIR@/adir'"}},
      {"import_truncated_into_store", kSt, {"import", "@DIR@/cut.nc", "--dataset", "x"}, 1,
       {"'@DIR@/cut.nc'"}},
      // ---- import: options (all checked before a store is created) ----
      {"import_empty_id", kNo, {"import", good, "--dataset", ""}, 1,
       {"--dataset", "dataset id is empty"}},
      {"import_long_id", kNo, {"import", good, "--dataset", long_id}, 1,
       {"--dataset", "257 bytes", "the limit is 256"}},
      {"import_block_zero", kNo, {"import", good, "--dataset", "x", "--block", "0x5"}, 1,
       {"--block '0x5'", "[1, 1048576]"}},
      {"import_block_not_xy", kNo, {"import", good, "--dataset", "x", "--block", "256"}, 1,
       {"--block '256' is not XxY"}},
      {"import_block_overflow", kNo,
       {"import", good, "--dataset", "x", "--block", "99999999999999999999x1"}, 1,
       {"--block", "[1, 1048576]"}},
      {"import_block_huge", kNo, {"import", good, "--dataset", "x", "--block", "1048577x1"}, 1,
       {"--block", "[1, 1048576]"}},
      {"import_codec_lz4", kNo, {"import", good, "--dataset", "x", "--codec", "lz4"}, 1,
       {"--codec", "lz4"}},
      {"import_codec_level", kNo, {"import", good, "--dataset", "x", "--codec", "zstd:99"}, 1,
       {"--codec", "99"}},
      {"import_codec_level_text", kNo,
       {"import", good, "--dataset", "x", "--codec", "shuffle-zstd:x"}, 1, {"--codec", "x"}},
      {"import_frame_rows_huge", kNo,
       {"import", good, "--dataset", "x", "--frame-rows", "1048577"}, 1,
       {"--frame-rows '1048577' is out of range", "[0, 1048576]"}},
      {"import_frame_rows_negative", kNo,
       {"import", good, "--dataset", "x", "--frame-rows", "-1"}, 1, {"--frame-rows '-1'"}},
      {"import_frame_rows_text", kNo,
       {"import", good, "--dataset", "x", "--frame-rows", "16k"}, 1,
       {"--frame-rows '16k' is not an integer"}},
      {"import_threads_zero", kNo, {"import", good, "--dataset", "x", "--threads", "0"}, 1,
       {"--threads '0' is out of range", "[1, 1024]"}},
      {"import_threads_negative", kNo, {"import", good, "--dataset", "x", "--threads", "-1"}, 1,
       {"--threads '-1' is out of range"}},
      {"import_threads_huge", kNo, {"import", good, "--dataset", "x", "--threads", "100000"}, 1,
       {"--threads '100000' is out of range"}},
      {"import_threads_text", kNo, {"import", good, "--dataset", "x", "--threads", "many"}, 1,
       {"--threads 'many' is not an integer"}},
      {"import_keep_bits_no_n", kNo, {"import", good, "--dataset", "x", "--keep-bits", "T"}, 1,
       {"--keep-bits wants VAR=N, not 'T'"}},
      {"import_keep_bits_range", kNo, {"import", good, "--dataset", "x", "--keep-bits", "T=24"},
       1, {"'T' (float32) can keep 1 to 23 mantissa bits, not 24"}},
      {"import_keep_digits_unknown", kNo,
       {"import", good, "--dataset", "x", "--keep-digits", "W=3"}, 1, {"names 'W'"}},
      {"import_variables_empty", kNo, {"import", good, "--dataset", "x", "--variables", ""}, 1,
       {"--variables is empty"}},
      {"import_variables_empty_item", kNo,
       {"import", good, "--dataset", "x", "--variables", "T,,U"}, 1,
       {"--variables 'T,,U' has an empty name"}},
      {"import_variables_unknown", kNo,
       {"import", good, "--dataset", "x", "--variables", "T,nope"}, 1, {"'nope'", "T", "U"}},
      {"import_attr_no_key", kNo, {"import", good, "--dataset", "x", "--attr", "=1"}, 1,
       {"--attr '=1' is not KEY=VALUE"}},
      {"import_attr_no_value", kNo, {"import", good, "--dataset", "x", "--attr", "novalue"}, 1,
       {"--attr 'novalue' is not KEY=VALUE"}},
      {"import_attr_huge_integer", kNo,
       {"import", good, "--dataset", "x", "--attr", "n=99999999999999999999"}, 1,
       {"--attr 'n=99999999999999999999'", "out of the int64 range"}},
      {"import_existing_id", kSt, {"import", good, "--dataset", "d"}, 1,
       {"'d' already exists", "--overwrite"}},
      {"import_bad_option_into_store", kSt,
       {"import", good, "--dataset", "x", "--frame-rows", "1048577"}, 1, {"--frame-rows"}},
      {"import_locked_store", kLock, {"import", good, "--dataset", "x"}, 1, {"@STORE@"}},
      {"import_read_only_store", kRo, {"import", good, "--dataset", "x"}, 1, {"@STORE@"}},
      {"import_missing_dataset_option", kNo, {"import", good}, 2, {"--dataset is required"}},

      // ---- info ----
      {"info_unknown_dataset", kSt, {"info", "nope"}, 1, {"dataset 'nope' does not exist"}},
      {"info_empty_id", kSt, {"info", ""}, 1, {"dataset id is empty"}},
      {"info_long_id", kSt, {"info", long_id}, 1, {"257 bytes", "the limit is 256"}},
      {"info_no_store", kNo, {"info", "d"}, 1, {"no GridStore store", "@STORE@"}},
      {"info_missing_id", kSt, {"info"}, 2, {"ID is required", "gridstore info -- -x"}},
      {"info_id_like_an_option", kSt, {"info", "-d"}, 2, {"goes after `--`"}},

      // ---- query ----
      {"query_where_missing_value", kSt, {"query", "--where", "status ="}, 1,
       {"--where: column 9: expected a value after '='"}, "", 3},
      {"query_where_unterminated_string", kSt, {"query", "--where", "a = 'x"}, 1,
       {"column 5: unterminated string"}, "", 3},
      {"query_where_unbalanced", kSt, {"query", "--where", "(a = 1"}, 1,
       {"missing ')' to close the '(' at column 1"}, "", 3},
      {"query_where_deep_parentheses", kSt, {"query", "--where", deep_parens}, 1,
       {"column 101:", "more than 100 deep (the limit)"}, "", 3},
      {"query_where_deep_not", kSt, {"query", "--where", deep_nots}, 1,
       {"more than 100 deep (the limit)"}, "", 3},
      {"query_where_empty", kSt, {"query", "--where", ""}, 1, {"the expression is empty"}, "", 3},
      {"query_where_bad_character", kSt, {"query", "--where", "a = 1 ; drop"}, 1,
       {"unexpected character ';'"}, "", 3},
      {"query_where_type_mismatch", kSt, {"query", "--where", "status = 5"}, 1, {"status"}},
      {"query_sort_empty_field", kSt, {"query", "--sort", ":desc"}, 1,
       {"--sort ':desc': the field name is empty"}},
      {"query_sort_bad_order", kSt, {"query", "--sort", "status:up"}, 1,
       {"--sort 'status:up': the order must be asc or desc"}},
      {"query_sort_empty", kSt, {"query", "--sort", ""}, 1, {"--sort is empty"}},
      {"query_sort_empty_item", kSt, {"query", "--sort", "a,,b"}, 1,
       {"--sort 'a,,b' has an empty name"}},
      {"serve_listen_not_host_port", kSt, {"serve", "--listen", "nonsense"}, 1,
       {"--listen 'nonsense' is not HOST:PORT"}},
      {"serve_listen_bad_address", kSt, {"serve", "--listen", "1.2.3.4.5:80"}, 1,
       {"--listen '1.2.3.4.5:80': not an IP address"}},
      {"serve_token_file_directory", kSt, {"serve", "--token-file", "@DIR@"}, 1,
       {"is not a regular file"}},
      {"serve_token_file_device", kSt, {"serve", "--token-file", "/dev/zero"}, 1,
       {"'/dev/zero' is not a regular file"}},
      {"serve_max_inflight_zero", kSt, {"serve", "--max-inflight", "0"}, 1,
       {"--max-inflight 0 must be at least 1"}},
      {"serve_max_response_negative", kSt, {"serve", "--max-response-mb", "-1"}, 1,
       {"--max-response-mb -1 is not a positive size"}},
      {"serve_no_store", kNo, {"serve"}, 1, {"no GridStore store"}},
      {"query_offset_negative", kSt, {"query", "--offset", "-1"}, 1,
       {"--offset '-1' is out of range"}},
      {"query_offset_text", kSt, {"query", "--offset", "ten"}, 1,
       {"--offset 'ten' is not an integer"}},
      {"query_limit_negative", kSt, {"query", "--limit", "-1"}, 1,
       {"--limit '-1' is out of range"}},
      {"query_limit_overflow", kSt, {"query", "--limit", "99999999999999999999"}, 1,
       {"--limit '99999999999999999999' is out of range"}},
      {"query_unknown_index", kSt, {"query", "--index", "nope"}, 1,
       {"no index named 'nope'", "'main'"}},
      {"query_no_store", kNo, {"query"}, 1, {"no GridStore store", "@STORE@"}},

      // ---- fetch: what ----
      {"fetch_unknown_dataset", kSt, {"fetch", "nope"}, 1, {"dataset 'nope' does not exist"}},
      {"fetch_unknown_variable", kSt, {"fetch", "d", "--variables", "nope"}, 1,
       {"no variable 'nope'", "T, U"}},
      {"fetch_variables_empty", kSt, {"fetch", "d", "--variables", ""}, 1,
       {"--variables is empty"}},
      {"fetch_variables_empty_item", kSt, {"fetch", "d", "--variables", "T,,U"}, 1,
       {"--variables 'T,,U' has an empty name"}},
      {"fetch_variables_trailing_comma", kSt, {"fetch", "d", "--variables", "T,"}, 1,
       {"--variables 'T,' ends with a comma"}},
      {"fetch_variable_twice", kSt, {"fetch", "d", "--variables", "T,T"}, 1,
       {"'T' is requested twice"}},
      {"fetch_without_variables", kSt, {"fetch", "cat"}, 1, {"'cat' has no variables"}},
      {"fetch_without_variables_origin", kSt, {"fetch", "cat", "--origin", "0,0,0,0"}, 1,
       {"'cat' has no variables"}},
      {"fetch_incomplete", kSt, {"fetch", "inc"}, 1, {"'inc' is not complete", "'INIT'"}},
      {"fetch_no_store", kNo, {"fetch", "d"}, 1, {"no GridStore store", "@STORE@"}},
      {"fetch_missing_id", kSt, {"fetch"}, 2, {"ID is required"}},
      {"fetch_unknown_option", kSt, {"fetch", "d", "--nope"}, 2, {"--nope"}},
      // ---- fetch: boxes ----
      {"fetch_origin_negative", kSt, {"fetch", "d", "--origin", "-1,0,0,0"}, 1,
       {"variable 'T', axis t (time): origin -1 is negative"}},
      {"fetch_origin_beyond_without_shape", kSt, {"fetch", "d", "--origin", "0,0,50,0"}, 1,
       {"--origin '0,0,50,0'", "axis x (lat): origin 50 is beyond the extent 6"}},
      {"fetch_box_out_of_range", kSt,
       {"fetch", "d", "--origin", "0,0,2,0", "--shape", "1,1,5,1"}, 1,
       {"axis x (lat): origin 2 + shape 5 exceeds the extent 6"}},
      {"fetch_shape_wrong_arity", kSt, {"fetch", "d", "--shape", "1,1,1"}, 1,
       {"--shape '1,1,1' has 3 value(s); expected 4"}},
      {"fetch_origin_too_many", kSt, {"fetch", "d", "--origin", "0,0,0,0,0"}, 1,
       {"--origin '0,0,0,0,0' has more than 4 values"}},
      {"fetch_origin_not_a_number", kSt, {"fetch", "d", "--origin", "a,0,0,0"}, 1,
       {"'a' is not an integer"}},
      {"fetch_origin_fraction", kSt, {"fetch", "d", "--origin", "0.5,0,0,0"}, 1,
       {"'0.5' is not an integer"}},
      {"fetch_origin_overflow", kSt,
       {"fetch", "d", "--origin", "99999999999999999999,0,0,0"}, 1,
       {"99999999999999999999 is out of the int64 range"}},
      {"fetch_shape_zero", kSt, {"fetch", "d", "--shape", "0,1,1,1"}, 1,
       {"shape 0 must be at least 1"}},
      {"fetch_shape_int64_max", kSt,
       {"fetch", "d", "--origin", "0,0,1,0", "--shape", "1,1,9223372036854775807,1"}, 1,
       {"exceeds the extent 6"}},
      // ---- fetch: outputs ----
      {"fetch_unknown_format", kSt, {"fetch", "d", "--format", "xls"}, 1,
       {"unknown output format 'xls'"}},
      {"fetch_unknown_extension", kSt, {"fetch", "d", "-o", "@DIR@/out.xlsx"}, 1,
       {"unknown output format 'xlsx'"}},
      {"fetch_npy_two_variables", kSt, {"fetch", "d", "--format", "npy"}, 1,
       {"npy output holds one variable"}},
      {"fetch_output_empty", kSt, {"fetch", "d", "-o", ""}, 1, {"-o is empty"}},
      {"fetch_output_missing_folder", kSt, {"fetch", "d", "-o", "@DIR@/nodir/x.csv"}, 1,
       {"cannot write '@DIR@/nodir/x.csv': the folder '@DIR@/nodir' does not exist"}},
      {"fetch_output_directory", kSt, {"fetch", "d", "-o", "@DIR@/adir", "--format", "csv"}, 1,
       {"cannot write '@DIR@/adir': it is a directory"}},
      {"fetch_output_through_a_file", kSt, {"fetch", "d", "-o", "@DIR@/text.nc/x.csv"}, 1,
       {"'@DIR@/text.nc' is not a folder"}},
      {"fetch_output_dev_full", kSt, {"fetch", "d", "--format", "csv", "-o", "/dev/full"}, 1,
       {"cannot write '/dev/full': no space left on device"}},
      {"fetch_output_dev_full_nc", kSt, {"fetch", "d", "--format", "nc", "-o", "/dev/full"}, 1,
       {"cannot write '/dev/full': no space left on device"}},
      {"fetch_output_read_only_folder", kSt,
       {"fetch", "d", "--variables", "T", "-o", "@DIR@/rofolder/x.npy"}, 1,
       {"cannot write '@DIR@/rofolder/x.npy'", "permission denied"}, "", 1, true},

      // ---- meta put ----
      {"meta_put_invalid_json", kNo, {"meta", "put"}, 1, {"line 1: not valid JSON"}, "not json\n"},
      {"meta_put_not_an_object", kNo, {"meta", "put"}, 1,
       {"line 1: expected a JSON object", "found an array"}, "[1, 2]\n"},
      {"meta_put_id_missing", kNo, {"meta", "put"}, 1, {"line 1: 'id' is missing"},
       R"({"attributes": {"a": 1}})"},
      {"meta_put_id_not_a_string", kNo, {"meta", "put"}, 1,
       {"line 1: 'id' must be a string, not a number"}, R"({"id": 5})"},
      {"meta_put_id_empty", kNo, {"meta", "put"}, 1, {"line 1: dataset id is empty"},
       R"({"id": ""})"},
      {"meta_put_attribute_array", kNo, {"meta", "put"}, 1,
       {"line 1: attribute 'x' must be a string, number, boolean or null", "not an array"},
       R"({"id": "a", "attributes": {"x": [1]}})"},
      {"meta_put_attribute_object", kNo, {"meta", "put"}, 1, {"attribute 'x'", "an object"},
       R"({"id": "a", "attributes": {"x": {"y": 1}}})"},
      {"meta_put_attributes_not_object", kNo, {"meta", "put"}, 1,
       {"'attributes' must be an object, not a string"}, R"({"id": "a", "attributes": "x"})"},
      {"meta_put_huge_integer", kNo, {"meta", "put"}, 1,
       {"line 1: attribute 'n': 99999999999999999999 is out of the int64 range"},
       R"({"id": "a", "attributes": {"n": 99999999999999999999}})"},
      {"meta_put_unknown_key", kNo, {"meta", "put"}, 1, {"line 1: unknown key 'extra'"},
       R"({"id": "a", "extra": 1})"},
      {"meta_put_empty_input", kNo, {"meta", "put"}, 1, {"the input holds no JSON lines"}, ""},
      {"meta_put_second_line_bad", kSt, {"meta", "put"}, 1, {"line 2: not valid JSON"},
       "{\"id\": \"new\"}\n{\"id\": \n"},
      {"meta_put_missing_file", kNo, {"meta", "put", "@DIR@/missing.json"}, 1,
       {"cannot open '@DIR@/missing.json': no such file"}},
      {"meta_put_directory", kNo, {"meta", "put", "@DIR@/adir"}, 1,
       {"cannot read '@DIR@/adir': it is a directory"}},
      {"meta_put_png_file", kNo, {"meta", "put", "@DIR@/picture.png"}, 1,
       {"line 1: not valid JSON"}},
      {"meta_put_locked_store", kLock, {"meta", "put"}, 1, {"@STORE@"}, R"({"id": "new"})"},
      {"meta_put_read_only_store", kRo, {"meta", "put"}, 1, {"@STORE@"}, R"({"id": "new"})"},

      // ---- index ----
      {"index_create_empty_name", kNo, {"index", "create", "", "a:string"}, 1,
       {"index name is empty"}},
      {"index_create_no_type", kNo, {"index", "create", "x", "status"}, 1,
       {"index field 'status': expected FIELD:TYPE"}},
      {"index_create_bad_type", kNo, {"index", "create", "x", "n:int"}, 1,
       {"index field 'n:int': unknown type 'int'"}},
      {"index_create_empty_field", kNo, {"index", "create", "x", ":string"}, 1,
       {"expected FIELD:TYPE"}},
      {"index_create_field_twice", kNo, {"index", "create", "x", "a:string", "a:int64"}, 1,
       {"index field 'a' is given twice"}},
      {"index_create_no_fields", kNo, {"index", "create", "x"}, 2, {"FIELDS is required"}},
      {"index_create_other_schema", kSt, {"index", "create", "main", "status:int64"}, 1,
       {"main"}},
      {"index_create_read_only_store", kRo, {"index", "create", "x", "a:string"}, 1,
       {"@STORE@"}},
      {"index_drop_unknown", kSt, {"index", "drop", "nope"}, 1,
       {"meta index 'nope' does not exist"}},
      {"index_drop_no_store", kNo, {"index", "drop", "main"}, 1, {"@STORE@"}},
      {"index_list_no_store", kNo, {"index", "list"}, 1, {"no GridStore store", "@STORE@"}},

      // ---- delete / verify ----
      {"delete_unknown_dataset", kSt, {"delete", "nope"}, 1, {"dataset 'nope' does not exist"}},
      {"delete_empty_id", kSt, {"delete", ""}, 1, {"dataset id is empty"}},
      {"delete_no_store", kNo, {"delete", "d"}, 1, {"@STORE@"}},
      {"delete_locked_store", kLock, {"delete", "d"}, 1, {"@STORE@"}},
      {"delete_read_only_store", kRo, {"delete", "d"}, 1, {"@STORE@"}},
      {"verify_unknown_dataset", kSt, {"verify", "nope"}, 1, {"dataset 'nope' does not exist"}},
      {"verify_no_store", kNo, {"verify"}, 1, {"no GridStore store", "@STORE@"}},
      {"compact_no_store", kNo, {"compact"}, 1, {"no GridStore store", "@STORE@"}},
      {"compact_read_only_store", kRo, {"compact"}, 1, {"@STORE@"}},

      // ---- a database that is not GridStore's: refused by every command, never adopted ----
      {"import_into_foreign_database", kFor, {"import", "@DIR@/good.nc", "--dataset", "x"}, 1,
       {"not a GridStore store", "column families"}},
      {"meta_put_into_foreign_database", kFor, {"meta", "put"}, 1,
       {"not a GridStore store", "column families"}, R"({"id": "x", "attributes": {}})"},
      {"index_create_into_foreign_database", kFor, {"index", "create", "i", "a:string"}, 1,
       {"not a GridStore store", "column families"}},
      {"info_foreign_database", kFor, {"info", "x"}, 1, {"not a GridStore store"}},
      {"delete_foreign_database", kFor, {"delete", "x"}, 1, {"not a GridStore store"}},
      {"compact_foreign_database", kFor, {"compact"}, 1, {"not a GridStore store"}},

      // ---- the command line itself ----
      {"unknown_command", kSt, {"frobnicate"}, 2, {"unknown command 'frobnicate'"}},
      {"no_command", kSt, {}, 2, {"no command given (commands: import, ingest, info, query, fetch"}},
      {"unknown_index_command", kSt, {"index", "craete", "i", "a:string"}, 2,
       {"unknown command 'index craete' (index commands: create, list, drop)"}},
      {"no_index_command", kSt, {"index"}, 2, {"no command given after 'index'"}},
      {"unknown_option_before_the_command", kSt, {"--stor", "x", "info", "d"}, 2,
       {"unknown option '--stor'"}},
      {"store_given_twice_differently", kSt, {"delete", "--store", "@DIR@/other", "d"}, 2,
       {"--store is given twice, as '@STORE@' and as '@DIR@/other'; give it once"}},
      {"store_given_twice_differently_no_store", kNo,
       {"index", "create", "--store", "@DIR@/other", "i", "a:string"}, 2,
       {"--store is given twice"}},
  };
  // clang-format on
}

std::string Substitute(std::string s, const std::string& dir, const std::string& store) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"@DIR@", dir},
                                 std::pair<std::string, std::string>{"@STORE@", store}}) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
      s.replace(at, from.size(), to);
    }
  }
  return s;
}

// Every key and value of every table, in order: equal strings mean an unchanged store.
// Every file below `path` with its bytes: for stores GridStore must not even open.
std::string DirectoryContents(const std::string& path) {
  std::string out;
  for (const auto& e : fs::recursive_directory_iterator(path)) {
    out +=
        e.path().string() + ":" + (e.is_regular_file() ? ReadFile(e.path().string()) : "") + "\n";
  }
  return out;
}

// A RocksDB database with only the default column family and one key.
void MakeForeignDatabase(const std::string& path) {
  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::DB* db = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, path, &db).ok());
  ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "theirs", "value").ok());
  ASSERT_TRUE(db->Close().ok());
  delete db;
}

std::string StoreContents(const std::string& path) {
  auto store = grid::GridStore::Open(path, {.read_only = true});
  if (!store.ok()) return "<cannot open: " + store.status().ToString() + ">";
  std::string out;
  for (storage::Table table :
       {storage::Table::kMeta, storage::Table::kData, storage::Table::kIndex}) {
    Status s = KvStoreOf(store->get())
                   ->Scan({}, table, storage::KeyRange{},
                          [&](std::string_view key, std::string_view value) {
                            out += std::to_string(static_cast<int>(table)) + ":" +
                                   std::to_string(key.size()) + ":";
                            out.append(key);
                            out += std::to_string(value.size()) + ":";
                            out.append(value);
                            return true;
                          });
    if (!s.ok()) return "<cannot scan: " + s.ToString() + ">";
  }
  return out;
}

void AddPermissions(const fs::path& root, fs::perms perms) {
  fs::permissions(root, perms, fs::perm_options::add);
  if (!fs::is_directory(root)) return;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    fs::permissions(e.path(), perms, fs::perm_options::add);
  }
}

void RemovePermissions(const fs::path& root, fs::perms perms) {
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    fs::permissions(e.path(), perms, fs::perm_options::remove);
  }
  fs::permissions(root, perms, fs::perm_options::remove);
}

class BadInputTest : public ::testing::TestWithParam<BadInput> {
 protected:
  // The input files and the shared store, made once per process.
  static void SetUpTestSuite() {
    dir_ = new ScopedTempDir();
    const std::string d = dir_->path().string();
    // "nobody" (see kReadOnlyStore) must be able to reach the files and read the store.
    fs::permissions(dir_->path(), fs::perms::others_read | fs::perms::others_exec,
                    fs::perm_options::add);
    testing::WriteTestNetCdf(d + "/good.nc", {"T", "U"}, 2, 1, 6, 8);
    const std::string bytes = ReadFile(d + "/good.nc");
    std::ofstream(d + "/cut.nc", std::ios::binary) << bytes.substr(0, 300);
    std::ofstream(d + "/text.nc") << "this is not a NetCDF file\n";
    std::ofstream(d + "/empty.nc") << "";
    std::ofstream(d + "/picture.png", std::ios::binary)
        << std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0", 29);
    fs::create_directory(d + "/adir");
    fs::create_directory(d + "/rofolder");
    fs::permissions(d + "/rofolder", fs::perms::owner_read | fs::perms::owner_exec |
                                         fs::perms::group_read | fs::perms::group_exec |
                                         fs::perms::others_read | fs::perms::others_exec);

    auto store = grid::GridStore::Open(StorePath(), {.create_if_missing = true});
    ASSERT_TRUE(store.ok()) << store.status();
    for (const char* id : {"d", "inc"}) {
      importers::NetCdfImportOptions options;
      options.dataset_id = id;
      options.layout.block_x = options.layout.block_y = 4;
      auto imported = importers::ImportNetCdf(store->get(), d + "/good.nc", options);
      ASSERT_TRUE(imported.ok()) << imported.status();
    }
    auto put = tools::PutMetas(store->get(),
                               "{\"id\": \"inc\", \"attributes\": {\"status\": \"INIT\"}}\n"
                               "{\"id\": \"cat\", \"attributes\": {\"source\": \"x\"}}\n");
    ASSERT_TRUE(put.ok()) << put.status();
    ASSERT_OK((*store)->CreateMetaIndex("main", {{{"status", grid::IndexFieldType::kString}}}));
    store->reset();
    AddPermissions(StorePath(), fs::perms::others_read | fs::perms::others_exec);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static std::string Dir() { return dir_->path().string(); }
  static std::string StorePath() { return Dir() + "/store"; }

  static ScopedTempDir* dir_;
};

ScopedTempDir* BadInputTest::dir_ = nullptr;

TEST_P(BadInputTest, Row) {
  const BadInput& c = GetParam();
  const bool as_nobody = geteuid() == 0 && (c.unprivileged || c.setup == Setup::kReadOnlyStore);
  std::string store = StorePath();
  if (c.setup == Setup::kNoStore) {
    store = Dir() + "/absent-" + c.name;
  } else if (c.setup == Setup::kReadOnlyStore) {
    store = Dir() + "/read-only-" + c.name;
    fs::copy(StorePath(), store, fs::copy_options::recursive);
    AddPermissions(store, fs::perms::others_read | fs::perms::others_exec);
    RemovePermissions(store,
                      fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write);
  } else if (c.setup == Setup::kForeignDatabase) {
    store = Dir() + "/foreign-" + c.name;
    MakeForeignDatabase(store);
    ASSERT_FALSE(HasFatalFailure());
  }
  const std::string before = c.setup == Setup::kNoStore           ? ""
                             : c.setup == Setup::kForeignDatabase ? DirectoryContents(store)
                                                                  : StoreContents(store);

  std::vector<std::string> args;
  for (const std::string& a : c.args) args.push_back(Substitute(a, Dir(), store));
  // Each row has its own folder for the command's stdin/stdout/stderr files.
  const std::string work = Dir() + "/run-" + c.name;
  fs::create_directory(work);
  std::unique_ptr<grid::GridStore> lock;
  if (c.setup == Setup::kLockedStore) {
    auto opened = grid::GridStore::Open(store);
    ASSERT_TRUE(opened.ok()) << opened.status();
    lock = std::move(opened).value();
  }
  RunResult r =
      RunGridStore(work, store, args, c.stdin_text,
                   as_nobody ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "");
  lock.reset();

  EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), c.stderr_lines) << r.err;
  EXPECT_EQ(r.err.rfind("gridstore: ", 0), 0u) << r.err;
  for (const std::string& part : c.message) {
    EXPECT_THAT(r.err, HasSubstr(Substitute(part, Dir(), store)));
  }
  EXPECT_EQ(r.out, "");

  if (c.setup == Setup::kNoStore) {
    EXPECT_FALSE(fs::exists(store)) << "a store was left at " << store;
  } else {
    if (c.setup == Setup::kReadOnlyStore) {
      AddPermissions(store, fs::perms::owner_write);
    }
    if (c.setup == Setup::kForeignDatabase) {
      EXPECT_EQ(DirectoryContents(store), before) << "the foreign database was touched";
    } else {
      EXPECT_EQ(StoreContents(store), before) << "the store changed";
    }
  }
  EXPECT_THAT(testing::TempLeftovers(Dir()), ::testing::IsEmpty());
  EXPECT_THAT(testing::TempLeftovers(Dir() + "/rofolder"), ::testing::IsEmpty());
  EXPECT_TRUE(fs::is_empty(Dir() + "/adir"));
  EXPECT_EQ(ReadFile(Dir() + "/text.nc"), "this is not a NetCDF file\n");
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInputTest, ::testing::ValuesIn(Catalogue()),
                         [](const ::testing::TestParamInfo<BadInput>& row) {
                           return row.param.name;
                         });

// The catalogue's names must be unique and usable as test names.
TEST(BadInputCatalogueTest, NamesAreUniqueIdentifiers) {
  std::set<std::string> names;
  for (const BadInput& c : Catalogue()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    EXPECT_EQ(c.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string::npos)
        << c.name;
  }
}

}  // namespace
}  // namespace gridstore
