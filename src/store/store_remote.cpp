// A Store opened on a postgresql:// URL: a SQLite snapshot in a temporary file (store/pg_store.h).
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "store/pg_store.h"
#include "store/store.h"

namespace ig {

Expected<std::unique_ptr<Store>> Store::open_remote(const std::string& url) {
  IG_ASSIGN_OR_RETURN(auto conn, pg_connect(url));
  std::error_code ec;
  std::string pattern =
      (std::filesystem::temp_directory_path(ec) / "infergap-snapshot-XXXXXX").string();
  const int fd = mkstemp(pattern.data());
  if (fd < 0) return io_error("{}: cannot create a temporary snapshot file", pattern);
  close(fd);
  auto opened = Store::open(pattern);
  if (!opened.ok()) {
    std::remove(pattern.c_str());
    return opened.status();
  }
  std::unique_ptr<Store> s = std::move(*opened);
  s->remote_ = url;  // from here on the destructor removes the snapshot
  IG_RETURN_IF_ERROR(pg_pull(*conn, *s, url).status());
  s->oracle_ = s->meta("oracle").value_or("");
  return s;
}

Status Store::push_to_remote() {
  if (remote_.empty()) return Status::Ok();
  Status pushed = [&]() -> Status {
    IG_ASSIGN_OR_RETURN(auto conn, pg_connect(remote_));
    // A deadlock victim's transaction is rolled back whole and run again (fleet/queue.cpp).
    for (int attempt = 1;; ++attempt) {
      try {
        pqxx::work tx(*conn);
        IG_RETURN_IF_ERROR(pg_push(tx, path_).status());
        tx.commit();
        return Status::Ok();
      } catch (const pqxx::transaction_rollback& e) {
        if (attempt == 5) return io_error("writing {}: {}", redact_url(remote_), e.what());
        std::this_thread::sleep_for(std::chrono::milliseconds(100 * attempt));
      } catch (const std::exception& e) {
        return io_error("writing {}: {}", redact_url(remote_), e.what());
      }
    }
  }();
  if (pushed.ok()) return pushed;
  // Hours of runs are not thrown away because the server went down at the end.
  keep_snapshot_ = true;
  return Status(pushed.code(),
                fmt::format("{}; the results are kept in {}: copy them in later with "
                            "`infergap merge {} -o {}`",
                            pushed.message(), path_, path_, redact_url(remote_)));
}

}  // namespace ig
