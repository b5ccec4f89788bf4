// A dense row-major float tensor: the only container the engine computes on.
// Deliberately plain (a shape and a std::vector) so that every reference test
// can index it with loops and every oneDNN call can take data() directly.
#pragma once
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace nmt {

using Shape = std::vector<int64_t>;

inline int64_t shape_size(const Shape& shape) {
    return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<int64_t>());
}

std::string shape_to_string(const Shape& shape);  // "[512,768]"

struct Tensor {
    Shape shape;
    std::vector<float> values;

    Tensor() = default;
    explicit Tensor(Shape s, float fill = 0.0f) : shape(std::move(s)), values(shape_size(shape), fill) {}

    int64_t size() const { return static_cast<int64_t>(values.size()); }
    int64_t rows() const { return shape.empty() ? 0 : shape[0]; }
    // From the shape alone, so that a weight whose values a model loaded for
    // int8 decoding never made (Model::int8) still tells its dimensions.
    int64_t cols() const {
        return shape.empty() ? 0 : std::accumulate(shape.begin() + 1, shape.end(), int64_t{1}, std::multiplies<int64_t>());
    }
    float* data() { return values.data(); }
    const float* data() const { return values.data(); }
    float* row(int64_t r) { return values.data() + r * cols(); }
    const float* row(int64_t r) const { return values.data() + r * cols(); }
    float& operator[](int64_t i) { return values[i]; }
    float operator[](int64_t i) const { return values[i]; }

    // Reshape keeping the storage; grows or shrinks capacity only when needed,
    // so hot loops can reuse a tensor without allocating.
    void resize(Shape s) {
        shape = std::move(s);
        values.resize(shape_size(shape));
    }
    void fill(float v) { std::fill(values.begin(), values.end(), v); }
    // resize then zero: reuses the storage of earlier, larger shapes.
    void zero(Shape s) {
        resize(std::move(s));
        fill(0.0f);
    }
};

}  // namespace nmt
