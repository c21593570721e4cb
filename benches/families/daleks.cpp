// Daleks, hand-written as a contest entrant would: BFS over the Doctor's
// cell and the Daleks' cells (in reading order of their start), packed in
// 64 bits, in a hash map. The Doctor steps to one of eight cells or
// waits; each Dalek in turn steps toward him (diagonally while both gaps
// are open, else straight; blocked, the row gap then the column gap; else
// it stays). He may not end on a Dalek's cell unless in the TARDIS. Input
// as puzzles/daleks.puz reads it.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <string>
#include <unordered_map>
using namespace std;
int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
    while (t--) {
        int h, w;
        scanf("%d %d", &h, &w);
        vector<string> g(h);
        static char buf[1 << 16];
        for (int r = 0; r < h; r++) { scanf("%s", buf); g[r] = buf; }
        vector<int> pos(1, 0);
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) {
            if (g[r][c] == 'W') pos[0] = r * w + c;
            if (g[r][c] == 'D') pos.push_back(r * w + c);
        }
        int k = pos.size();
        auto open = [&](int r, int c) { return r >= 0 && c >= 0 && r < h && c < w && g[r][c] != '#'; };
        auto pack = [&](const vector<int>& p) { uint64_t x = 0; for (int v : p) x = x * (uint64_t)(h * w) + v; return x; };
        auto unpack = [&](uint64_t x, vector<int>& p) { for (int i = k - 1; i >= 0; i--) { p[i] = x % (h * w); x /= h * w; } };
        auto caught = [&](const vector<int>& p) {
            if (g[p[0] / w][p[0] % w] == 'X') return false;
            for (int i = 1; i < k; i++) if (p[i] == p[0]) return true;
            return false;
        };
        unordered_map<uint64_t, int> dist;
        vector<uint64_t> q;
        int ans = -1;
        if (!caught(pos)) { dist[pack(pos)] = 0; q.push_back(pack(pos)); }
        const int dr[9] = {-1, -1, 0, 1, 1, 1, 0, -1, 0}, dc[9] = {0, 1, 1, 1, 0, -1, -1, -1, 0};
        vector<int> p(k), n(k);
        for (size_t qh = 0; qh < q.size(); qh++) {
            unpack(q[qh], p);
            int d0 = dist[q[qh]];
            if (g[p[0] / w][p[0] % w] == 'X') { ans = d0; break; }
            for (int d = 0; d < 9; d++) {
                int tr = p[0] / w + dr[d], tc = p[0] % w + dc[d];
                if (d < 8 && !open(tr, tc)) continue;
                n = p;
                n[0] = tr * w + tc;
                for (int i = 1; i < k; i++) {
                    int mr = n[i] / w, mc = n[i] % w;
                    int sr = (tr > mr) - (tr < mr), sc = (tc > mc) - (tc < mc);
                    if (sr && sc && open(mr + sr, mc + sc)) { mr += sr; mc += sc; }
                    else if (sr && open(mr + sr, mc)) mr += sr;
                    else if (sc && open(mr, mc + sc)) mc += sc;
                    n[i] = mr * w + mc;
                }
                if (caught(n)) continue;
                uint64_t u = pack(n);
                if (!dist.count(u)) { dist[u] = d0 + 1; q.push_back(u); }
            }
        }
        printf("%d\n", ans);
    }
}
