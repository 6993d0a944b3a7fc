// unit/shared_chunks: the rules by which the devices of one product share the pieces of A and B they copy into pinned
// memory: the first to ask copies, the others borrow its slot once it is filled, a slot taken again is no longer lent,
// and a claim given up goes to the next asker.
#include <atomic>
#include <chrono>
#include <thread>
#include <tilegemm/host/shared_chunks.hpp>

#include "catch.hpp"

using tilegemm::detail::SharedChunks;

TEST_CASE("shared chunks: claim, fill, borrow, withdraw, give up", "[unit][shared_chunks]") {
  SharedChunks shared;
  const char memory[64] = {};
  char slot_one[16] = {}, slot_two[16] = {};
  const SharedChunks::Piece piece{memory, 8, 2, 32}, other{memory + 8, 8, 2, 32};

  SharedChunks::Use first = shared.use(piece);  // nobody has it: a claim
  CHECK(first.borrowed() == nullptr);
  first.filled(slot_one);
  SharedChunks::Use second = shared.use(piece);  // filled: borrowed from slot one
  CHECK(second.borrowed() == slot_one);
  CHECK(shared.use(other).borrowed() == nullptr);  // another piece is claimed apart (and given up here)

  // Taking slot one again waits for the borrower to say which upload reads it.
  std::atomic<bool> withdrawn{false};
  std::thread owner([&] {
    shared.withdraw(slot_one);
    withdrawn = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(withdrawn);
  second.returned(cl::Event());
  owner.join();
  CHECK(withdrawn);
  CHECK(shared.pieces_borrowed() == 1);

  // Withdrawn: the piece is claimed anew; a claim dropped unfilled is given up, so the next asker claims it.
  {
    SharedChunks::Use again = shared.use(piece);
    CHECK(again.borrowed() == nullptr);
  }
  SharedChunks::Use third = shared.use(piece);
  CHECK(third.borrowed() == nullptr);
  third.filled(slot_two);
  CHECK(shared.use(piece).borrowed() == slot_two);  // a borrow dropped without an upload returns by itself
  shared.withdraw(slot_two);
  CHECK(shared.pieces_borrowed() == 2);
}

TEST_CASE("shared chunks: an asker waits while another device fills the piece", "[unit][shared_chunks]") {
  SharedChunks shared;
  const char memory[16] = {};
  char slot[16] = {};
  const SharedChunks::Piece piece{memory, 16, 1, 16};
  SharedChunks::Use claim = shared.use(piece);
  std::atomic<const char*> seen{nullptr};
  std::thread asker([&] {
    SharedChunks::Use use = shared.use(piece);
    seen = use.borrowed();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(seen.load() == nullptr);  // still waiting for the fill
  claim.filled(slot);
  asker.join();
  CHECK(seen.load() == slot);
}
