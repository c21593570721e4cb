// Holedox Moving (POJ 1324), hand-written as a contest entrant would: BFS
// over (head's square, the way from each body square to the next, 2 bits
// each), visited in a byte array of squares * 4^(L-1). The head steps to a
// square in the burrow that is no stone and no square of the body (the
// tail's neither); the body follows. Input as puzzles/burrow.puz reads it:
// `n m L`, L squares from the head, K, K stones (1-based), `0 0 0`.
#include <cstdio>
#include <cstdint>
#include <vector>
using namespace std;
int main() {
    const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
    int n, m, L, cs = 0;
    while (scanf("%d %d %d", &n, &m, &L) == 3 && (n || m || L)) {
        vector<int> br(L), bc(L);
        for (int i = 0; i < L; i++) { scanf("%d %d", &br[i], &bc[i]); br[i]--; bc[i]--; }
        int k;
        scanf("%d", &k);
        vector<char> stone(n * m, 0);
        for (int i = 0; i < k; i++) { int r, c; scanf("%d %d", &r, &c); stone[(r - 1) * m + c - 1] = 1; }
        int seg = L - 1, codes = 1 << (2 * seg);
        // The way from body square i to square i + 1, first segment highest.
        auto way = [&](int r0, int c0, int r1, int c1) {
            for (int d = 0; d < 4; d++) if (r0 + dr[d] == r1 && c0 + dc[d] == c1) return d;
            return 0;
        };
        uint32_t code = 0;
        for (int i = 0; i < seg; i++) code = code * 4 + way(br[i], bc[i], br[i + 1], bc[i + 1]);
        vector<char> seen((size_t)n * m * codes, 0);
        vector<uint32_t> q;
        uint32_t s0 = (uint32_t)(br[0] * m + bc[0]) * codes + code;
        seen[s0] = 1; q.push_back(s0);
        int ans = -1;
        size_t qh = 0;
        int rs[8], cs_[8];
        for (int depth = 0; qh < q.size() && ans < 0; depth++) {
            size_t end = q.size();
            for (; qh < end; qh++) {
                uint32_t s = q[qh];
                int head = s / codes; uint32_t c = s % codes;
                rs[0] = head / m; cs_[0] = head % m;
                if (head == 0) { ans = depth; break; }
                for (int i = 1; i <= seg; i++) {
                    int d = (c >> (2 * (seg - i))) & 3;
                    rs[i] = rs[i - 1] + dr[d]; cs_[i] = cs_[i - 1] + dc[d];
                }
                for (int d = 0; d < 4; d++) {
                    int nr = rs[0] + dr[d], nc = cs_[0] + dc[d];
                    if (nr < 0 || nc < 0 || nr >= n || nc >= m || stone[nr * m + nc]) continue;
                    bool hit = false;
                    for (int i = 1; i <= seg; i++) if (rs[i] == nr && cs_[i] == nc) { hit = true; break; }
                    if (hit) continue;
                    // The new first way: from the new head back to the old one.
                    uint32_t nc2 = ((c >> 2) | ((uint32_t)((d + 2) & 3) << (2 * (seg - 1))));
                    if (seg == 0) nc2 = 0;
                    uint32_t u = (uint32_t)(nr * m + nc) * codes + nc2;
                    if (!seen[u]) { seen[u] = 1; q.push_back(u); }
                }
            }
        }
        printf("Case %d: %d\n", ++cs, ans);
    }
}
