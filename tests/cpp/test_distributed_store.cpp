// The stores of runtime/src/distributed: one semantics suite run on every
// store, then what is particular to each (files shared by users, TCP servers
// with several clients, ports in use, clients that never connect or die).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <thread>

#include "distributed/file_store.h"
#include "distributed/hash_store.h"
#include "distributed/prefix_store.h"
#include "distributed/socket.h"
#include "distributed/tcp_store.h"
#include "expect_error.h"

namespace ember::distributed {
namespace {

using ember::testing::expect_error;
using namespace std::chrono_literals;

Bytes bytes(const std::string& text) { return Bytes(text.begin(), text.end()); }

std::string temporary_path(const std::string& name) {
  std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::replace(test.begin(), test.end(), '/', '_');
  return (std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()) + "." + test)).string();
}

// How long `f` ran.
template <typename F>
Milliseconds time_of(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration_cast<Milliseconds>(std::chrono::steady_clock::now() - start);
}

void expect_timeout_within_ten_percent(Milliseconds timeout, const std::function<void()>& call) {
  const Milliseconds took = time_of([&] {
    expect_error(call, ErrorKind::DistributedStore, "timed out after " + std::to_string(timeout.count()) + " ms");
  });
  EXPECT_GE(took.count(), timeout.count() * 9 / 10);
  EXPECT_LE(took.count(), timeout.count() * 11 / 10);
}

// A store and, for the cross-store cases, a second handle on the same data.
struct StorePair {
  StorePtr first;
  StorePtr second;
  std::shared_ptr<void> keep_alive;
};

struct StoreKind {
  std::string name;
  std::function<StorePair(const std::string& path)> make;
};

std::vector<StoreKind> store_kinds() {
  return {
      {"HashStore",
       [](const std::string&) {
         auto store = std::make_shared<HashStore>();
         return StorePair{store, store, nullptr};
       }},
      {"PrefixStore",
       [](const std::string&) {
         auto base = std::make_shared<HashStore>();
         return StorePair{std::make_shared<PrefixStore>("job", base), std::make_shared<PrefixStore>("job", base), base};
       }},
      {"FileStore",
       [](const std::string& path) {
         return StorePair{std::make_shared<FileStore>(path, 2), std::make_shared<FileStore>(path, 2), nullptr};
       }},
      {"TCPStore",
       [](const std::string&) {
         auto master = std::make_shared<TCPStore>(
             TCPStoreOptions{.world_size = 2, .is_master = true, .timeout = 5000ms, .wait_for_workers = false});
         auto client =
             std::make_shared<TCPStore>(TCPStoreOptions{.port = master->port(), .world_size = 2, .timeout = 5000ms});
         return StorePair{client, master, master};
       }},
  };
}

class StoreSemantics : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override { pair_ = GetParam().make(temporary_path("ember_store")); }
  StorePair pair_;
};

TEST_P(StoreSemantics, SetGetAcrossHandles) {
  pair_.first->set("key", bytes("value"));
  EXPECT_EQ(pair_.second->get("key"), bytes("value"));
  pair_.second->set("key", bytes(""));
  EXPECT_EQ(pair_.first->get("key"), bytes(""));
  const Bytes binary{0, 255, 1, 0};
  pair_.first->set("binary", binary);
  EXPECT_EQ(pair_.second->get("binary"), binary);
}

TEST_P(StoreSemantics, AddKeepsDecimalText) {
  EXPECT_EQ(pair_.first->add("counter", 5), 5);
  EXPECT_EQ(pair_.second->add("counter", -7), -2);
  EXPECT_EQ(pair_.first->get("counter"), bytes("-2"));
  pair_.first->set("text", bytes("twelve"));
  expect_error([&] { pair_.second->add("text", 1); }, ErrorKind::DistributedStore, "not a decimal integer");
  EXPECT_EQ(pair_.first->get("text"), bytes("twelve"));
}

TEST_P(StoreSemantics, CompareSet) {
  EXPECT_EQ(pair_.first->compare_set("cas", bytes("wrong"), bytes("new")), bytes("wrong"));
  EXPECT_FALSE(pair_.first->check({"cas"}));
  EXPECT_EQ(pair_.first->compare_set("cas", {}, bytes("first")), bytes("first"));
  EXPECT_EQ(pair_.second->compare_set("cas", bytes("nope"), bytes("second")), bytes("first"));
  EXPECT_EQ(pair_.second->compare_set("cas", bytes("first"), bytes("second")), bytes("second"));
  EXPECT_EQ(pair_.first->get("cas"), bytes("second"));
}

TEST_P(StoreSemantics, CheckDeleteAndNumKeys) {
  EXPECT_EQ(pair_.first->num_keys(), 0);
  pair_.first->set("a", bytes("1"));
  pair_.first->add("b", 1);
  EXPECT_TRUE(pair_.second->check({"a", "b"}));
  EXPECT_FALSE(pair_.second->check({"a", "c"}));
  EXPECT_EQ(pair_.second->num_keys(), 2);
  EXPECT_TRUE(pair_.second->delete_key("a"));
  EXPECT_FALSE(pair_.first->delete_key("a"));
  EXPECT_FALSE(pair_.first->check({"a"}));
  EXPECT_EQ(pair_.first->num_keys(), 1);
}

TEST_P(StoreSemantics, WaitReturnsWhenAnotherThreadSets) {
  std::thread setter([&] {
    std::this_thread::sleep_for(50ms);
    pair_.second->set("late", bytes("here"));
  });
  pair_.first->wait({"late"}, 5000ms);
  EXPECT_EQ(pair_.first->get("late"), bytes("here"));
  setter.join();
}

TEST_P(StoreSemantics, AnEndlessTimeoutWaitsInsteadOfOverflowing) {
  std::thread setter([&] {
    std::this_thread::sleep_for(50ms);
    pair_.second->set("eventually", bytes(""));
  });
  pair_.first->wait({"eventually"}, Milliseconds::max());
  setter.join();
}

TEST_P(StoreSemantics, GetAndWaitTimeOutWithinTenPercentNamingKeys) {
  // Long enough that a loaded machine's scheduling delays stay inside 10%.
  pair_.first->set_timeout(1000ms);
  expect_timeout_within_ten_percent(1000ms, [&] { pair_.first->get("missing"); });
  pair_.first->set("present", bytes(""));
  expect_timeout_within_ten_percent(700ms, [&] { pair_.first->wait({"present", "absent"}, 700ms); });
  expect_error([&] { pair_.first->wait({"present", "absent"}, 50ms); }, ErrorKind::DistributedStore, "present', '");
}

TEST_P(StoreSemantics, ConcurrentAddsFromManyThreadsSum) {
  constexpr int kThreads = 4;
  constexpr int kAdds = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Store& store = t % 2 == 0 ? *pair_.first : *pair_.second;
      for (int i = 0; i < kAdds; ++i) store.add("sum", 1);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(pair_.first->add("sum", 0), kThreads * kAdds);
}

INSTANTIATE_TEST_SUITE_P(EveryStore, StoreSemantics, ::testing::ValuesIn(store_kinds()),
                         [](const auto& info) { return info.param.name; });

TEST(PrefixStore, KeysLiveUnderThePrefixInTheUnderlyingStore) {
  auto base = std::make_shared<HashStore>();
  PrefixStore prefixed("group0", base);
  prefixed.set("address", bytes("host"));
  EXPECT_TRUE(base->check({"group0/address"}));
  EXPECT_FALSE(base->check({"address"}));
  expect_error([] { PrefixStore("p", nullptr); }, ErrorKind::Value, "underlying store");
}

TEST(FileStore, LastOfWorldSizeUsersRemovesTheFile) {
  const std::string path = temporary_path("ember_file_store");
  {
    FileStore first(path, 2);
    {
      FileStore second(path, 2);
      second.set("k", bytes("v"));
      expect_error([&] { FileStore third(path, 2); }, ErrorKind::DistributedStore, "world_size of 2");
    }
    EXPECT_TRUE(std::filesystem::exists(path));
    EXPECT_EQ(first.get("k"), bytes("v"));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(FileStore, WorldSizeMinusOneKeepsTheFile) {
  const std::string path = temporary_path("ember_file_store_kept");
  { FileStore(path, -1).set("k", bytes("v")); }
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(FileStore(path, -1).get("k"), bytes("v"));
  std::filesystem::remove(path);
}

TEST(FileStore, ATornRecordAtTheEndIsIgnored) {
  const std::string path = temporary_path("ember_file_store_torn");
  FileStore store(path, -1);
  store.set("whole", bytes("1"));
  {
    // A writer that died after the kind byte and half a length field.
    FILE* file = std::fopen(path.c_str(), "ab");
    ASSERT_NE(file, nullptr);
    std::fputs("\x00\x05\x00", file);
    std::fputc(0, file);
    std::fclose(file);
  }
  EXPECT_EQ(FileStore(path, -1).get("whole"), bytes("1"));
  EXPECT_EQ(store.num_keys(), 1);
  std::filesystem::remove(path);
}

TEST(FileStore, AnUnopenablePathNamesIt) {
  expect_error([] { FileStore("/nonexistent-dir/ember/store", 1); }, ErrorKind::DistributedStore,
               "/nonexistent-dir/ember/store");
}

TEST(TCPStore, ServesSeveralClientsFromThreads) {
  TCPStore master(TCPStoreOptions{.world_size = 4, .is_master = true, .timeout = 5000ms, .wait_for_workers = false});
  std::vector<std::thread> clients;
  std::atomic<int> failures{0};
  for (int rank = 1; rank < 4; ++rank) {
    clients.emplace_back([&, rank] {
      try {
        TCPStore client(TCPStoreOptions{.port = master.port(), .world_size = 4, .timeout = 5000ms});
        client.set("rank" + std::to_string(rank), bytes(std::to_string(rank)));
        for (int i = 0; i < 20; ++i) client.add("total", rank);
        client.wait({"rank1", "rank2", "rank3"});
      } catch (const Error&) {
        ++failures;
      }
    });
  }
  for (auto& client : clients) client.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(master.add("total", 0), 20 * (1 + 2 + 3));
  EXPECT_EQ(master.get("rank2"), bytes("2"));
}

TEST(TCPStore, MasterWaitsForWorkersOrNamesHowManyJoined) {
  TCPStoreOptions options{.world_size = 2, .is_master = true, .timeout = 300ms};
  expect_error([&] { TCPStore master(options); }, ErrorKind::DistributedStore, "1 of 2 workers joined");
}

TEST(TCPStore, APortInUseNamesHostPortAndTheReason) {
  TCPStore master(TCPStoreOptions{.is_master = true, .timeout = 1000ms});
  expect_error([&] { TCPStore second(TCPStoreOptions{.port = master.port(), .is_master = true, .timeout = 1000ms}); },
               ErrorKind::DistributedStore, "127.0.0.1:" + std::to_string(master.port()) + ": Address already in use");
}

TEST(TCPStore, AClientWithoutServerRetriesUntilTheTimeout) {
  // A port that was free a moment ago, with nothing listening on it now.
  std::uint16_t port = 0;
  {
    FileDescriptor probe = listen_tcp("127.0.0.1", 0);
    port = local_port(probe.get());
  }
  const Milliseconds took = time_of([&] {
    expect_error([&] { TCPStore client(TCPStoreOptions{.port = port, .timeout = 500ms}); }, ErrorKind::DistributedStore,
                 "could not connect to 127.0.0.1:" + std::to_string(port) + " after");
  });
  EXPECT_GE(took.count(), 450);
  EXPECT_LE(took.count(), 1000);
}

// A raw connection to the server, for clients that misbehave.
FileDescriptor raw_connection(std::uint16_t port) { return connect_tcp("127.0.0.1", port, 1000ms); }

TEST(TCPStore, ServerSurvivesAClientThatDiesMidMessage) {
  TCPStore master(TCPStoreOptions{.is_master = true, .timeout = 2000ms});
  {
    FileDescriptor dying = raw_connection(master.port());
    // A Set announcing 100 bytes, of which it sends 3 before it goes.
    const char partial[] = {100, 0, 0, 0, 1, 5, 0};
    ASSERT_EQ(::send(dying.get(), partial, sizeof partial, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof partial));
  }
  {
    // One announcing more than the server accepts.
    FileDescriptor greedy = raw_connection(master.port());
    const unsigned char huge[] = {0xff, 0xff, 0xff, 0xff, 1};
    ASSERT_EQ(::send(greedy.get(), huge, sizeof huge, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof huge));
    char byte = 0;
    EXPECT_EQ(::recv(greedy.get(), &byte, 1, 0), 0);  // The server closed it.
  }
  TCPStore client(TCPStoreOptions{.port = master.port(), .timeout = 2000ms});
  client.set("after", bytes("fine"));
  EXPECT_EQ(master.get("after"), bytes("fine"));
  EXPECT_EQ(master.num_keys(), 1);
}

TEST(TCPStore, ClientsReportALostServer) {
  auto master = std::make_unique<TCPStore>(TCPStoreOptions{.is_master = true, .timeout = 2000ms});
  TCPStore client(TCPStoreOptions{.port = master->port(), .timeout = 2000ms});
  master.reset();
  expect_error([&] { client.set("k", bytes("v")); }, ErrorKind::DistributedStore, "lost the connection");
  expect_error([&] { client.get("k"); }, ErrorKind::DistributedStore, "connection to the server was lost");
}

TEST(TCPStore, AWaitingClientDoesNotBlockOthers) {
  TCPStore master(TCPStoreOptions{.is_master = true, .timeout = 5000ms});
  TCPStore waiter(TCPStoreOptions{.port = master.port(), .timeout = 5000ms});
  std::thread waiting([&] { EXPECT_EQ(waiter.get("signal"), bytes("go")); });
  std::this_thread::sleep_for(20ms);
  TCPStore other(TCPStoreOptions{.port = master.port(), .timeout = 5000ms});
  EXPECT_EQ(other.add("unrelated", 3), 3);
  other.set("signal", bytes("go"));
  waiting.join();
}

TEST(TCPStore, AWaitOnOneStoreDoesNotBlockItsOtherThreads) {
  TCPStore master(TCPStoreOptions{.is_master = true, .timeout = 5000ms});
  TCPStore client(TCPStoreOptions{.port = master.port(), .timeout = 5000ms});
  std::thread waiting([&] { client.wait({"from the same store"}); });
  std::this_thread::sleep_for(20ms);
  const Milliseconds took = time_of([&] { client.set("from the same store", bytes("")); });
  waiting.join();
  EXPECT_LT(took.count(), 1000);
}

}  // namespace
}  // namespace ember::distributed
