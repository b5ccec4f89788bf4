#include "layers/onednn_rnn.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/onednn_context.h"

namespace nmt {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

struct OnednnRnnLayer::Compiled {
    dnnl::primitive primitive;
    memory::desc src_md, dst_md, scratchpad_md;
    memory weights_layer, weights_iter, bias;  // the model's tensors, as stored
};

OnednnRnnLayer::OnednnRnnLayer(CellType cell, const Tensor& W, const Tensor& U, const Tensor& b)
    : cell_(cell), W_(W), U_(U), b_(b), input_size_(W.shape.at(0)), hidden_size_(U.shape.at(0)) {}

OnednnRnnLayer::~OnednnRnnLayer() = default;

namespace {

// oneDNN's reference RNN wants a scratchpad of about 30 KB per row of a
// [T, N] batch. Layers run one after another, so every layer and shape on a
// thread shares one, grown to the largest asked for (a oneDNN allocation:
// aligned as its kernels expect). One per layer and shape held 1.5 GB after
// 3,000 news sentences.
void* thread_scratchpad(size_t bytes) {
    thread_local memory buffer;
    thread_local size_t size = 0;
    if (size < bytes) {
        buffer = memory();  // the old one goes first: never both at once
        buffer = memory(memory::desc({static_cast<memory::dim>(bytes)}, dt::u8, tag::a), cpu_engine());
        size = bytes;
    }
    return buffer.get_data_handle();
}

}  // namespace

OnednnRnnLayer::Compiled& OnednnRnnLayer::compiled(int64_t T, int64_t N) {
    auto& slot = cache_[{T, N}];
    if (slot) return *slot;
    const int64_t I = input_size_, H = hidden_size_, G = cell_ == CellType::GRU ? 3 : 4;
    auto c = std::make_unique<Compiled>();
    c->src_md = memory::desc({T, N, I}, dt::f32, tag::tnc);
    c->dst_md = memory::desc({T, N, H}, dt::f32, tag::tnc);
    // The weights as stored (ldigo): oneDNN would prefer rows padded by 16
    // floats, but reordering into that cost a copy and its page faults per
    // layer, 20 ms of a one-line translation, for no speed measurable here.
    const memory::desc w_md({1, 1, I, G, H}, dt::f32, tag::ldigo);
    const memory::desc u_md({1, 1, H, G, H}, dt::f32, tag::ldigo);
    const memory::desc bias_md({1, 1, G, H}, dt::f32, tag::ldgo);
    const memory::desc none;
    const auto prop = dnnl::prop_kind::forward_inference;
    const auto dir = dnnl::rnn_direction::unidirectional_left2right;
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (cell_ == CellType::GRU) {
        dnnl::gru_forward::desc d(prop, dir, c->src_md, none, w_md, u_md, bias_md, c->dst_md, none);
        dnnl::gru_forward::primitive_desc pd(d, attr, cpu_engine());
        c->primitive = dnnl::gru_forward(pd);
        c->scratchpad_md = pd.scratchpad_desc();
    } else {
        dnnl::lstm_forward::desc d(prop, dir, c->src_md, none, none, w_md, u_md, bias_md, c->dst_md, none, none);
        dnnl::lstm_forward::primitive_desc pd(d, attr, cpu_engine());
        c->primitive = dnnl::lstm_forward(pd);
        c->scratchpad_md = pd.scratchpad_desc();
    }
    c->weights_layer = memory(w_md, cpu_engine(), const_cast<float*>(W_.data()));
    c->weights_iter = memory(u_md, cpu_engine(), const_cast<float*>(U_.data()));
    c->bias = memory(bias_md, cpu_engine(), const_cast<float*>(b_.data()));
    slot = std::move(c);
    return *slot;
}

void OnednnRnnLayer::run(const float* input, int64_t T, int64_t N, float* output) {
    Compiled& c = compiled(T, N);
    auto& engine = cpu_engine();
    memory src(c.src_md, engine, const_cast<float*>(input));
    memory dst(c.dst_md, engine, output);
    memory scratchpad(c.scratchpad_md, engine, thread_scratchpad(c.scratchpad_md.get_size()));
    c.primitive.execute(cpu_stream(), {{DNNL_ARG_SRC_LAYER, src},
                                       {DNNL_ARG_WEIGHTS_LAYER, c.weights_layer},
                                       {DNNL_ARG_WEIGHTS_ITER, c.weights_iter},
                                       {DNNL_ARG_BIAS, c.bias},
                                       {DNNL_ARG_DST_LAYER, dst},
                                       {DNNL_ARG_SCRATCHPAD, scratchpad}});
    cpu_stream().wait();
}

void OnednnRnnLayer::forward(const float* input, int64_t T, int64_t N, float* output) {
    if (T == 0 || N == 0) return;
    // The scratchpad grows with T × N (about 30 KB a row: 184 MB for a batch
    // of 32 long news sentences), so a batch with more rows than this runs in
    // slices of whole sentences; each sentence's rows are independent.
    constexpr int64_t max_rows = 1024;
    const int64_t per_slice = std::max<int64_t>(1, max_rows / T);
    if (N <= per_slice) return run(input, T, N, output);
    const int64_t I = input_size_, H = hidden_size_;
    for (int64_t first = 0; first < N; first += per_slice) {
        const int64_t n = std::min(per_slice, N - first);
        slice_input_.resize({T, n, I});
        slice_output_.resize({T, n, H});
        for (int64_t t = 0; t < T; ++t)
            std::memcpy(slice_input_.data() + t * n * I, input + (t * N + first) * I, n * I * sizeof(float));
        run(slice_input_.data(), T, n, slice_output_.data());
        for (int64_t t = 0; t < T; ++t)
            std::memcpy(output + (t * N + first) * H, slice_output_.data() + t * n * H, n * H * sizeof(float));
    }
}

}  // namespace nmt
