// kernels/wgmma_operands: the inline-PTX operand lists of wgmma's FP32 accumulators, which the tf32 and the 16-bit
// wgmma kernels share: the accumulators as "+f" operands and their numbers in the instruction's text.
#pragma once

namespace tilegemm::detail {

inline constexpr char wgmma_operands_source[] = R"CLC(
// Accumulators d[i] to d[i + 7] (d[i] to d[i + 63]) as read-and-written operands of an asm statement.
#define WGMMA_D8(d, i)                                                                                     \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), \
      "+f"(d[i + 7])
#define WGMMA_D64(d, i)                                                                                              \
  WGMMA_D8(d, i), WGMMA_D8(d, i + 8), WGMMA_D8(d, i + 16), WGMMA_D8(d, i + 24), WGMMA_D8(d, i + 32), WGMMA_D8(d, i + 40), \
      WGMMA_D8(d, i + 48), WGMMA_D8(d, i + 56)
// The first 32, 64 and 128 operands' numbers, as wgmma lists its accumulators (between braces).
#define WGMMA_LIST32                                                                                                  \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30," \
  "%31"
#define WGMMA_LIST64                                                                                                  \
  WGMMA_LIST32 ",%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55," \
               "%56,%57,%58,%59,%60,%61,%62,%63"
#define WGMMA_LIST128                                                                                                 \
  WGMMA_LIST64 ",%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87," \
               "%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,"  \
               "%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
)CLC";

}  // namespace tilegemm::detail
