// The impairment proxy's queue: every datagram it holds, in both directions, ordered by the
// time it is due to be sent (FIFO among datagrams due at the same nanosecond), with the bytes
// it holds counted for the proxy's limit. Single-threaded.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace framelock::netem {

using Nanos = std::int64_t;  // CLOCK_MONOTONIC
inline constexpr Nanos kNever = std::numeric_limits<Nanos>::max();

enum class Direction { kUp, kDown };

struct Datagram {
    Nanos due = 0;
    std::uint64_t seq = 0;  // FIFO among datagrams due at the same nanosecond
    Nanos received = 0;
    Direction direction = Direction::kUp;
    std::uint64_t client = 0;  // the client's source address, packed (by the proxy)
    std::vector<std::uint8_t> payload;
};

// Datagrams ordered by due time: a binary min-heap, O(log n) per push and pop.
class DelayQueue {
  public:
    bool empty() const { return m_heap.empty(); }
    std::size_t bytes() const { return m_bytes; }
    std::size_t size() const { return m_heap.size(); }
    Nanos next_due() const { return m_heap.empty() ? kNever : m_heap.front().due; }

    // Queues `datagram` at its `due` time (its `seq` is set here).
    void push(Datagram datagram) {
        datagram.seq = m_next_seq++;
        m_bytes += datagram.payload.size();
        m_heap.push_back(std::move(datagram));
        std::push_heap(m_heap.begin(), m_heap.end(), later);
    }

    // Takes the datagram due first. The queue must not be empty.
    Datagram pop() {
        std::pop_heap(m_heap.begin(), m_heap.end(), later);
        Datagram datagram = std::move(m_heap.back());
        m_heap.pop_back();
        m_bytes -= datagram.payload.size();
        return datagram;
    }

  private:
    static bool later(const Datagram& a, const Datagram& b) {
        return a.due != b.due ? a.due > b.due : a.seq > b.seq;
    }

    std::vector<Datagram> m_heap;
    std::uint64_t m_next_seq = 0;
    std::size_t m_bytes = 0;
};

}  // namespace framelock::netem
