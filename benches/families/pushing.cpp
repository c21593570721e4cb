// Pushing boxes (POJ 1475) as puzzles/pushing.puz states it: one box, the
// fewest pushes, then the fewest walks; of those ways the least as text
// ('E' < 'N' < 'S' < 'W' < 'e' < 'n' < 's' < 'w'). As a user would write
// it: Dijkstra's algorithm over (keeper, box) with the cost pushes * 2^32
// + walks; then, walking back over the settled states in reverse order,
// the states on a best way to a best goal; then from the start the least
// letter whose step stays on such a way.
// Input: "rows cols", the rows, "0 0" at the end. Prints "Maze #k", the
// way or "Impossible.", and a blank line.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <queue>
#include <string>
#include <vector>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    int h, w, maze = 0;
    const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
    const char walk[4] = {'n', 'e', 's', 'w'}, push[4] = {'N', 'E', 'S', 'W'};
    // Moves in the order of their letters (E N S W, e n s w); pushes first.
    const int by_letter[4] = {1, 0, 2, 3};
    const uint64_t PUSH = 1ull << 32, INF = ~0ull;
    while (cin >> h >> w && (h || w)) {
        vector<string> g(h);
        for (auto &row : g) cin >> row;
        int n = h * w, keeper = 0, box = 0, target = 0;
        for (int i = 0; i < n; i++) {
            char ch = g[i / w][i % w];
            if (ch == 'S') keeper = i;
            if (ch == 'B') box = i;
            if (ch == 'T') target = i;
        }
        // The cell one step from `cell` in direction d, or -1.
        auto step = [&](int cell, int d) {
            int r = cell / w + dr[d], c = cell % w + dc[d];
            if (r < 0 || c < 0 || r >= h || c >= w || g[r][c] == '#') return -1;
            return r * w + c;
        };
        // The state after move d (a walk or a push), or -1; whether it pushed.
        auto next = [&](int s, int d, bool &pushed) {
            int k = s / n, b = s % n, a = step(k, d);
            pushed = a == b;
            if (a < 0) return -1;
            if (!pushed) return a * n + b;
            int beyond = step(b, d);
            return beyond < 0 ? -1 : a * n + beyond;
        };
        vector<uint64_t> dist((size_t)n * n, INF);
        vector<int> order;
        priority_queue<pair<uint64_t, int>, vector<pair<uint64_t, int>>, greater<>> heap;
        int start = keeper * n + box;
        dist[start] = 0;
        heap.push({0, start});
        uint64_t best = INF;
        while (!heap.empty()) {
            auto [d, s] = heap.top();
            heap.pop();
            if (d != dist[s] || d > best) continue;
            order.push_back(s);
            if (s % n == target) {
                best = d;
                continue;
            }
            for (int m = 0; m < 4; m++) {
                bool pushed;
                int t = next(s, m, pushed);
                if (t < 0) continue;
                uint64_t nd = d + (pushed ? PUSH : 1);
                if (nd < dist[t]) dist[t] = nd, heap.push({nd, t});
            }
        }
        printf("Maze #%d\n", ++maze);
        if (best == INF) {
            printf("Impossible.\n\n");
            continue;
        }
        // on[s]: a best way to a best goal passes s.
        vector<char> on((size_t)n * n, 0);
        for (size_t i = order.size(); i-- > 0;) {
            int s = order[i];
            if (s % n == target) {
                on[s] = dist[s] == best;
                continue;
            }
            for (int m = 0; m < 4 && !on[s]; m++) {
                bool pushed;
                int t = next(s, m, pushed);
                on[s] = t >= 0 && on[t] && dist[s] + (pushed ? PUSH : 1) == dist[t];
            }
        }
        string way;
        for (int s = start; s % n != target;) {
            int chosen = -1;
            char letter = 0;
            for (int pass = 0; pass < 2 && chosen < 0; pass++)
                for (int i = 0; i < 4 && chosen < 0; i++) {
                    int m = by_letter[i];
                    bool pushed;
                    int t = next(s, m, pushed);
                    if (t < 0 || pushed != (pass == 0) || !on[t]) continue;
                    if (dist[s] + (pushed ? PUSH : 1) != dist[t]) continue;
                    chosen = t, letter = pushed ? push[m] : walk[m];
                }
            way += letter;
            s = chosen;
        }
        printf("%s\n\n", way.c_str());
    }
}
