models = {
    'gpt-4-1106-preview': {
        'Alias': '4',
        'Model': 'gpt-4-1106-preview',
        'Input_cost': 0.01,
        'Input_desc': '/ 1K tokens',
        'Input_cur': '$',
        'Output_cost': 0.03,
        'Output_desc': '/ 1K tokens',
        'Output_cur': '$'
    },
    'gpt-4-1106-vision-preview': {
        'Alias': '4v',
        'Model': 'gpt-4-1106-vision-preview',
        'Input_cost': 0.01,
        'Input_desc': '/ 1K tokens',
        'Input_cur': '$',
        'Output_cost': 0.03,
        'Output_desc': '/ 1K tokens',
        'Output_cur': '$'
    },
    'gpt-3.5-turbo-1106': {
        'Alias': '3',
        'Model': 'gpt-3.5-turbo-1106',
        'Input_cost': 0.0010,
        'Input_desc': '/ 1K tokens',
        'Input_cur': '$',
        'Output_cost': 0.0020,
        'Output_desc': '/ 1K tokens',
        'Output_cur': '$'
    },
    'ruu3f-perplexityai': {
        'Alias': 'px',
        'Model': 'ruu3f-perplexityai',
        'Input_cost': 0.0,
        'Input_desc': '/ with limits',
        'Input_cur': '$',
        'Output_cost': 0.0,
        'Output_desc': '/ with limits',
        'Output_cur': '$'
    }
}
