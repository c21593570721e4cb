// Bloxorz, hand-written as a contest entrant would: BFS over (anchor cell,
// pose, bridge lowered). Standing, lying north-south or lying east-west;
// each move tips the block by its table; every cell it comes to cover is
// floor (a bridge cell only while lowered); a switch newly covered toggles
// the bridge. Input as puzzles/bloxorz.puz reads it.
#include <cstdio>
#include <vector>
#include <string>
using namespace std;
int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
    // Per move (north, south, east, west), per pose (up, long, wide): the
    // pose it takes and the anchor's shift.
    const int to[4][3] = {{1, 0, 2}, {1, 0, 2}, {2, 1, 0}, {2, 1, 0}};
    const int sr[4][3] = {{-2, -1, -1}, {1, 2, 1}, {0, 0, 0}, {0, 0, 0}};
    const int sc[4][3] = {{0, 0, 0}, {0, 0, 0}, {1, 1, 2}, {-2, -1, -1}};
    const int cr[3] = {0, 1, 0}, cc[3] = {0, 0, 1};  // the second cell, if any
    while (t--) {
        int h, w;
        scanf("%d %d", &h, &w);
        vector<string> g(h);
        static char buf[1 << 16];
        for (int r = 0; r < h; r++) { scanf("%s", buf); g[r] = buf; }
        int br = -1, bc = -1, pose = 0;
        for (int r = h - 1; r >= 0; r--) for (int c = w - 1; c >= 0; c--) if (g[r][c] == 'B') {
            if (br >= 0) pose = br > r ? 1 : 2;
            br = r; bc = c;
        }
        auto cell = [&](int r, int c) { return r >= 0 && c >= 0 && r < h && c < w ? g[r][c] : '-'; };
        // State: ((anchor * 3 + pose) * 2 + lowered).
        vector<int> dist((size_t)h * w * 6, -1), q;
        int s0 = ((br * w + bc) * 3 + pose) * 2;
        dist[s0] = 0; q.push_back(s0);
        int ans = -1;
        for (size_t qh = 0; qh < q.size(); qh++) {
            int s = q[qh], low = s & 1, p = (s >> 1) % 3, a = (s >> 1) / 3, r = a / w, c = a % w;
            if (p == 0 && g[r][c] == 'O') { ans = dist[s]; break; }
            for (int m = 0; m < 4; m++) {
                int np = to[m][p], nr = r + sr[m][p], nc = c + sc[m][p];
                int n = np == 0 ? 1 : 2;
                int rs[2] = {nr, nr + cr[np]}, cs[2] = {nc, nc + cc[np]};
                bool ok = true;
                int nl = low;
                for (int k = 0; k < n; k++) {
                    char x = cell(rs[k], cs[k]);
                    if (x == '-' || (x == '=' && !low)) ok = false;
                }
                if (!ok) continue;
                for (int k = 0; k < n; k++) {
                    if (cell(rs[k], cs[k]) != 'o') continue;
                    bool before = (rs[k] == r && cs[k] == c) ||
                                  (p != 0 && rs[k] == r + cr[p] && cs[k] == c + cc[p]);
                    if (!before) nl ^= 1;
                }
                int u = ((nr * w + nc) * 3 + np) * 2 + nl;
                if (dist[u] < 0) { dist[u] = dist[s] + 1; q.push_back(u); }
            }
        }
        printf("%d\n", ans);
    }
}
