// A small, fully specified random generator (splitmix64 seeding xoshiro256**),
// so that initialisation, dropout and data shuffling give the same numbers on
// every platform and library version for a given seed — std::distributions
// do not promise that.
#pragma once
#include <cmath>
#include <cstdint>

namespace nmt {

class Random {
public:
    explicit Random(uint64_t seed = 1) { reseed(seed); }

    void reseed(uint64_t seed) {
        for (auto& s : state_) {
            seed += 0x9E3779B97F4A7C15ull;
            uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            s = z ^ (z >> 31);
        }
    }

    uint64_t next() {
        const uint64_t result = rotl(state_[1] * 5, 7) * 9;
        const uint64_t t = state_[1] << 17;
        state_[2] ^= state_[0];
        state_[3] ^= state_[1];
        state_[1] ^= state_[2];
        state_[0] ^= state_[3];
        state_[2] ^= t;
        state_[3] = rotl(state_[3], 45);
        return result;
    }

    float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
    float uniform(float low, float high) { return low + (high - low) * uniform(); }
    uint64_t below(uint64_t n) { return next() % n; }  // bias negligible for our n

    const uint64_t* state() const { return state_; }
    void set_state(const uint64_t* s) {
        for (int i = 0; i < 4; ++i) state_[i] = s[i];
    }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t state_[4];
};

}  // namespace nmt
